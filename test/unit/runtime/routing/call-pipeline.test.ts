import { describe, expect, it } from 'vitest';
import { callPipeline, type CallStep, type CallSteps, type PipelineCall } from '../../../../runtime/routing/call-pipeline.js';
import { authorizeStep } from '../../../../runtime/routing/steps/authorize-step.js';
import { ToolNotFoundError } from '../../../../schemas/errors.js';
import type { AccessDecision } from '../../../../schemas/access-config.js';

const STEPS = ['observe', 'resolve', 'authorize', 'guard', 'dispatch', 'askForInput', 'signIn', 'send'] as const;

function call(): PipelineCall {
  return {
    ctx: { method: 'call_tool', capability: 'a_echo', sessionId: 's', transport: 'streamable-http', backend: 'a' },
    caller: { sessionId: 's', transport: 'streamable-http' },
    opts: {},
    op: {
      method: 'call_tool',
      kind: 'tool',
      capability: 'a_echo',
      lookup: () => undefined,
      notFound: () => new ToolNotFoundError('a_echo'),
      outgoing: () => ({ method: 'tools/call', params: {} }),
      wireMethod: 'tools/call',
    },
  };
}

describe('the call pipeline', () => {
  it('runs its steps in the declared order, each around the ones after it', async () => {
    const trace: string[] = [];
    const steps = Object.fromEntries(
      STEPS.map((name): [string, CallStep] => [
        name,
        async (_c, next) => {
          trace.push(`>${name}`);
          const r = name === 'send' ? { ok: true } : await next();
          trace.push(`<${name}`);
          return r;
        },
      ]),
    ) as unknown as CallSteps;
    await expect(callPipeline(steps)(call())).resolves.toEqual({ ok: true });
    expect(trace).toEqual([...STEPS.map((s) => `>${s}`), ...[...STEPS].reverse().map((s) => `<${s}`)]);
  });

  it('a failure in a step passes back through the steps before it, and the steps after it never run', async () => {
    const ran: string[] = [];
    const seen: unknown[] = [];
    const steps = Object.fromEntries(
      STEPS.map((name): [string, CallStep] => [
        name,
        async (_c, next) => {
          ran.push(name);
          if (name === 'authorize') throw new ToolNotFoundError('a_echo');
          try {
            return await next();
          } catch (err) {
            seen.push(name);
            throw err;
          }
        },
      ]),
    ) as unknown as CallSteps;
    await expect(callPipeline(steps)(call())).rejects.toThrow(/Unknown tool: a_echo/);
    expect(ran).toEqual(['observe', 'resolve', 'authorize']);
    expect(seen).toEqual(['resolve', 'observe']);
  });

  it('authorize: a refusal answers as an unknown name even when the name is held back; an allowed held name says why', async () => {
    const refuse: AccessDecision = { allowed: false, policyIndex: 0, effect: 'deny' };
    const refusing = authorizeStep({ check: () => refuse });
    const allowing = authorizeStep({ check: () => ({ allowed: true, policyIndex: null, effect: 'allow' }) });
    const held = (): PipelineCall => ({ ...call(), unserved: new Error('held back until approved') });
    const next = () => Promise.resolve({ forwarded: true });
    const refused = held();
    await expect(refusing(refused, next)).rejects.toThrow(/Unknown tool: a_echo/);
    expect(refused.ctx.denial).toEqual(refuse);
    await expect(allowing(held(), next)).rejects.toThrow('held back until approved');
    await expect(allowing(call(), next)).resolves.toEqual({ forwarded: true });
  });
});
