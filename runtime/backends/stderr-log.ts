/**
 * The last lines each backend wrote to stderr, by backend name, across its
 * connection attempts: a backend that keeps failing to start is exactly the
 * one whose stderr an operator wants to read (GET /manage/v1/backends/{name}/stderr,
 * the console's backend page). Raw lines with the time they came, unlike
 * StderrTail, which keeps only what explains an exit. Bounded per backend;
 * a backend removed from the config is forgotten.
 */
export interface StderrLine {
  /** ISO 8601. */
  at: string;
  text: string;
}

/** Lines kept per backend. */
export const STDERR_LINES_KEPT = 200;
/** A longer line is cut: one runaway line must not fill the buffer. */
const MAX_LINE_CHARS = 2000;

export class StderrLog {
  private readonly lines = new Map<string, StderrLine[]>();

  push(backend: string, text: string): void {
    let kept = this.lines.get(backend);
    if (!kept) this.lines.set(backend, (kept = []));
    kept.push({ at: new Date().toISOString(), text: text.length > MAX_LINE_CHARS ? `${text.slice(0, MAX_LINE_CHARS)}…` : text });
    if (kept.length > STDERR_LINES_KEPT) kept.splice(0, kept.length - STDERR_LINES_KEPT);
  }

  /** The newest `limit` lines, oldest first. */
  tail(backend: string, limit = STDERR_LINES_KEPT): StderrLine[] {
    return (this.lines.get(backend) ?? []).slice(-limit);
  }

  forget(backend: string): void {
    this.lines.delete(backend);
  }
}
