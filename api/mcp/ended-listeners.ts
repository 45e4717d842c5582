/** Who hears that a session ended (its subscriptions, the fan-out): one list per session table, whatever its store. */
export type EndedListener = (id: string) => Promise<void> | void;

export class EndedListeners {
  private readonly listeners = new Set<EndedListener>();

  add(listener: EndedListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async notify(id: string): Promise<void> {
    await Promise.all([...this.listeners].map(async (listener) => listener(id)));
  }
}
