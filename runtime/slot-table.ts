/**
 * Values under numeric ids, for a table that lives as long as the process
 * while its entries come and go at request rate (the requests one server is
 * handling now).
 *
 * A Map would do, but not cheaply: as entries churn V8 replaces a Map's
 * backing table, and a replaced table that had reached the old generation
 * keeps every value it held reachable for each young-generation GC until
 * the next full one. With a request's whole graph behind each value (its
 * HTTP request and response, its caller), that more than doubled what each
 * request left to the old generation (docs/performance.md, "What a Map
 * costs"). Here slots are reused and cleared in place, and the arrays only
 * grow, up to the most entries held at once.
 *
 * Each id carries its slot's generation, so an id whose entry is gone never
 * finds a later entry in the same slot: a message about an ended request
 * cannot reach the request that took its slot.
 */

/** Slots per generation: ids stay safe integers for 2^32 uses of each slot. */
const SLOTS = 2 ** 21;

export class SlotTable<T> {
  private readonly values: (T | undefined)[] = [];
  private readonly generations: number[] = [];
  private readonly free: number[] = [];
  private count = 0;

  /** How many entries are held. */
  get size(): number {
    return this.count;
  }

  /** Holds `value` under a new id. */
  add(value: T): number {
    let slot = this.free.pop();
    if (slot === undefined) {
      slot = this.values.length;
      if (slot >= SLOTS) throw new RangeError(`more than ${SLOTS} entries held at once`);
      this.values.push(undefined);
      this.generations.push(0);
    }
    const generation = (this.generations[slot]! + 1) % 2 ** 32;
    this.generations[slot] = generation;
    this.values[slot] = value;
    this.count++;
    return generation * SLOTS + slot;
  }

  get(id: number): T | undefined {
    const slot = this.slotOf(id);
    return slot === undefined ? undefined : this.values[slot];
  }

  /** Removes the entry and returns it (undefined when the id's entry is gone). */
  take(id: number): T | undefined {
    const slot = this.slotOf(id);
    if (slot === undefined) return undefined;
    const value = this.values[slot];
    if (value === undefined) return undefined;
    this.values[slot] = undefined;
    this.free.push(slot);
    this.count--;
    return value;
  }

  clear(): void {
    for (let slot = 0; slot < this.values.length; slot++) {
      if (this.values[slot] === undefined) continue;
      this.values[slot] = undefined;
      this.free.push(slot);
    }
    this.count = 0;
  }

  /** The slot of an id of this table whose generation is current, if any. */
  private slotOf(id: number): number | undefined {
    if (!Number.isSafeInteger(id) || id < 0) return undefined;
    const slot = id % SLOTS;
    return slot < this.values.length && this.generations[slot] === Math.floor(id / SLOTS) ? slot : undefined;
  }
}
