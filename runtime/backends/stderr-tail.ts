/**
 * The last lines a backend wrote to stderr, kept so that "process exited
 * with code 1" can say why (`Error: Cannot find module …`): the backend's
 * error and events carry a short summary. Every way out of the gateway
 * (logs, the management API, the event stream) redacts it like any text.
 */

/** Lines kept; stack frames and blank lines are not. */
const KEPT_LINES = 20;
/** The summary never grows a record beyond this. */
const MAX_SUMMARY_CHARS = 400;
/** Frames of a stack trace and Node's version footer say nothing an operator needs. */
const NOISE = /^\s*(at\s|Node\.js v\d|\^+\s*$|throw\s)/;
const ERROR_LINE = /\b(error|exception|fatal|cannot|denied|not found)\b/i;

export class StderrTail {
  private lines: string[] = [];

  push(line: string): void {
    if (!line.trim() || NOISE.test(line)) return;
    this.lines.push(line.trim());
    if (this.lines.length > KEPT_LINES) this.lines.shift();
  }

  /**
   * The most telling line: the last that reads like an error. Empty when none
   * does: a backend's ordinary chatter ("serving on stdio") explains nothing.
   */
  summary(): string {
    const telling = [...this.lines].reverse().find((l) => ERROR_LINE.test(l)) ?? '';
    return telling.length > MAX_SUMMARY_CHARS ? `${telling.slice(0, MAX_SUMMARY_CHARS)}…` : telling;
  }

  /** A reason with what stderr said, when it said anything. */
  explain(reason: string): string {
    const said = this.summary();
    return said ? `${reason}; stderr: ${said}` : reason;
  }
}
