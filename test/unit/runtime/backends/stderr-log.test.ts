/** The stderr lines kept per backend for the console: bounded, cut when too long, forgotten with the backend. */
import { describe, expect, it } from 'vitest';
import { StderrLog, STDERR_LINES_KEPT } from '../../../../runtime/backends/stderr-log.js';

describe('StderrLog', () => {
  it('keeps the newest lines of each backend, oldest first, with the time they came', () => {
    const log = new StderrLog();
    for (let i = 0; i < STDERR_LINES_KEPT + 5; i++) log.push('a', `line ${i}`);
    log.push('b', 'other');
    const tail = log.tail('a');
    expect(tail).toHaveLength(STDERR_LINES_KEPT);
    expect(tail[0]!.text).toBe('line 5');
    expect(tail.at(-1)!.text).toBe(`line ${STDERR_LINES_KEPT + 4}`);
    expect(Number.isNaN(Date.parse(tail[0]!.at))).toBe(false);
    expect(log.tail('a', 2).map((l) => l.text)).toEqual([`line ${STDERR_LINES_KEPT + 3}`, `line ${STDERR_LINES_KEPT + 4}`]);
    expect(log.tail('b')).toHaveLength(1);
    expect(log.tail('nobody')).toEqual([]);
  });

  it('cuts a runaway line and forgets a removed backend', () => {
    const log = new StderrLog();
    log.push('a', 'x'.repeat(10_000));
    expect(log.tail('a')[0]!.text.length).toBeLessThan(2100);
    log.forget('a');
    expect(log.tail('a')).toEqual([]);
  });
});
