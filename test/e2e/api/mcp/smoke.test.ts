import { describe, it, expect, afterAll, beforeAll } from 'vitest';
import { startGateway, type Harness } from '../../../helpers/gateway-harness.js';
import { fixtureCommand, startHttpFixture, type HttpFixture } from '../../../fixtures/spawn.js';

describe('smoke: three transports through one gateway', () => {
  let h: Harness;
  let sse: HttpFixture;
  let http: HttpFixture;
  beforeAll(async () => {
    sse = await startHttpFixture({ transport: 'sse', name: 'sseb' });
    http = await startHttpFixture({ transport: 'streamable-http', name: 'httpb' });
    const stdio = fixtureCommand(['--name', 'stdiob']);
    h = await startGateway({
      backends: {
        s: { type: 'stdio', command: stdio.command, args: stdio.args },
        e: { type: 'sse', url: sse.url },
        h: { type: 'streamable-http', url: http.url },
      },
    });
  });
  afterAll(async () => {
    await h?.close();
    await sse?.stop();
    await http?.stop();
  });

  it('lists prefixed tools of all three and calls each', async () => {
    const client = await h.connect();
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['s_echo', 'e_echo', 'h_echo']));
    for (const b of ['s', 'e', 'h']) {
      const r = await client.callTool({ name: `${b}_echo`, arguments: { text: `hi ${b}` } });
      expect(r.structuredContent).toEqual({ text: `hi ${b}` });
    }
  });
});
