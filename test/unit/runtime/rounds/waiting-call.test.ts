import { describe, expect, it } from 'vitest';
import { WaitingCall } from '../../../../runtime/rounds/waiting-call.js';
import { requestDigest } from '../../../../runtime/rounds/call-binding.js';

const elicit = (message: string) => ({ method: 'elicitation/create', params: { message } });

describe('WaitingCall', () => {
  it('hands the backend requests to the waiter as one round, and the answers back to the backend', async () => {
    const call = new WaitingCall();
    call.start(async () => {
      const [a, b] = await Promise.all([call.ask(elicit('one')), call.ask(elicit('two'))]);
      return { got: [a.action, b.action] };
    });
    const turn = await call.next();
    expect(turn.kind).toBe('input');
    if (turn.kind !== 'input') return;
    expect(turn.questions.map((q) => q.request.params?.message)).toEqual(['one', 'two']);
    // Only one answered: the other is asked again at once.
    call.answer({ [turn.questions[0]!.key]: { action: 'accept' } });
    const again = await call.next();
    expect(again.kind === 'input' && again.questions.map((q) => q.key)).toEqual([turn.questions[1]!.key]);
    call.answer({ [turn.questions[1]!.key]: { action: 'decline' }, unknown: { action: 'accept' } });
    expect(await call.next()).toEqual({ kind: 'result', result: { got: ['accept', 'decline'] } });
    expect(call.answers.map((a) => a.a.action)).toEqual(['accept', 'decline']);
  });

  it('a call run again answers what it already has from the replay and asks only what is new', async () => {
    const replay = [{ d: requestDigest('elicitation/create', { message: 'one' }), a: { action: 'accept', content: { v: 1 } } }];
    const call = new WaitingCall(replay);
    call.start(async () => {
      const first = await call.ask(elicit('one'));
      const second = await call.ask(elicit('two'));
      return { first: first.content, second: second.action };
    });
    const turn = await call.next();
    expect(turn.kind === 'input' && turn.questions.map((q) => q.request.params?.message)).toEqual(['two']);
    if (turn.kind === 'input') call.answer({ [turn.questions[0]!.key]: { action: 'cancel' } });
    expect(await call.next()).toEqual({ kind: 'result', result: { first: { v: 1 }, second: 'cancel' } });
  });

  it('cancelling aborts the call and refuses its open questions; only input requests may be asked', async () => {
    const call = new WaitingCall();
    let aborted = false;
    call.start(
      (signal) =>
        new Promise((_, reject) => {
          signal.addEventListener('abort', () => {
            aborted = true;
            reject(new Error(String(signal.reason)));
          });
          call.ask(elicit('x')).catch(() => undefined);
        }),
    );
    expect((await call.next()).kind).toBe('input');
    call.cancel('gone');
    const end = await call.next();
    expect(aborted).toBe(true);
    expect(end.kind === 'error' && (end.error as Error).message).toBe('gone');
    await expect(new WaitingCall().ask({ method: 'tools/call' })).rejects.toThrow(/not a request a client answers/);
  });
});
