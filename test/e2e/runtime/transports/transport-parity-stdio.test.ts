/**
 * Issue 11: the gateway's stdio client transport (ProcessGroupStdioTransport,
 * which reads with runtime/transports/line-reader.ts) against the SDK's
 * StdioClientTransport, bare or behind runtime/transports/ordered-delivery.ts,
 * each under a real SDK Client talking to the fixture server as a real child
 * process (dist/test/fixtures: run `npm run build` first). One list of
 * behaviours, asserted identically for every transport unless a comment says
 * why not.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { ProcessGroupStdioTransport } from '../../../../runtime/transports/process-group-stdio-transport.js';
import { fixtureCommand, fixtureMainPath } from '../../../fixtures/spawn.js';
import { CLIENT_KINDS, maybeOrdered, testClient, type ClientKind } from '../../../helpers/parity-clients.js';
import { isAlive } from '../../../helpers/wait.js';
import {
  expectOnlyDroppedProgressErrors,
  expectProgressBurst,
  expectSamplingAndElicitation,
  expectToolError,
  expectToolsListAndCall,
  textOf,
} from '../../../helpers/parity-behaviours.js';

const BURST = 100;

describe.each(CLIENT_KINDS)('%s stdio client transport', (kind: ClientKind) => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    await Promise.allSettled(cleanups.splice(0).map((c) => c()));
  });
  // Tests that leave the server as they found it share one process (each costs a Node start).
  let shared: ReturnType<typeof connect> | undefined;
  const sharedConnection = () => (shared ??= connect(undefined, false));
  afterAll(async () => {
    await (await shared)?.client.close();
  });

  /** Ours or the SDK's, on `command` (the SDK's would pass the fixture's stderr log through to the test output). */
  const stdioTransport = (command: { command: string; args: string[] }) =>
    kind.startsWith('ours') ? new ProcessGroupStdioTransport(command) : new StdioClientTransport({ ...command, stderr: 'ignore' });

  async function connect(command = fixtureCommand(['--name', 'stdio-parity']), closeAfterTest = true) {
    const raw = stdioTransport(command);
    const t = testClient();
    let closed = false;
    const onClosed = new Promise<void>((resolve) => {
      t.client.onclose = () => {
        closed = true;
        t.changes.notify();
        resolve();
      };
    });
    if (closeAfterTest) cleanups.push(() => t.client.close());
    await t.client.connect(maybeOrdered(kind, raw));
    const pid = raw.pid;
    if (!pid) throw new Error('no child process');
    return Object.assign(t, { pid, onClosed, isClosed: () => closed });
  }

  it('initialize: server info, no session id', async () => {
    const { client } = await sharedConnection();
    expect(client.getServerVersion()).toEqual({ name: 'stdio-parity', version: '1.0.0' });
    expect(client.transport?.sessionId).toBeUndefined();
  });

  it('tools/list and tools/call', async () => {
    await expectToolsListAndCall((await sharedConnection()).client);
  });

  it('a JSON-RPC error from a tool reaches the caller with its code and message', async () => {
    await expectToolError((await sharedConnection()).client);
  });

  it(`${BURST} progress notifications sent back to back reach the Client before the result, in order`, async () => {
    // Bare, the SDK's StdioClientTransport drops some, as ours does: see the next test. How
    // many depends on how stdout was chunked; what arrives is a prefix, in order.
    await expectProgressBurst((await sharedConnection()).client, BURST, kind.endsWith('+ordered'));
  });

  it('progress read in the same chunk as its result: dropped by the bare transports (SDK behaviour), kept by ordered delivery', async () => {
    // The server writes 10 progress notifications and the result in one pipe write, so
    // they arrive as one chunk. Both bare transports hand every line of a chunk over
    // synchronously; the SDK's Protocol settles the result at once but runs notification
    // handlers a microtask later, after it forgot the call's progress handler, so every
    // one of them is dropped ("unknown progress token"). The SDK's own
    // StdioClientTransport does this too: it is the SDK Client's behaviour, and the reason
    // runtime/transports/ordered-delivery.ts wraps every gateway backend transport.
    const { client, errors } = await connect({ command: process.execPath, args: [fixtureMainPath('one-write-burst-main')] });
    for (let round = 0; round < 3; round++) {
      const progress: number[] = [];
      const result = await client.callTool({ name: 'burst', arguments: { count: 10 } }, undefined, { onprogress: (p) => progress.push(p.progress) });
      expect(textOf(result)).toBe('burst 10');
      expect(progress).toEqual(kind.endsWith('+ordered') ? [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] : []);
    }
    // The Protocol reports each one it dropped.
    expectOnlyDroppedProgressErrors(errors, kind.endsWith('+ordered') ? 0 : 30);
  });

  it('sampling and elicitation requests sent during a call are answered by the client', async () => {
    await expectSamplingAndElicitation(await sharedConnection());
  });

  it('tools/list_changed (a notification tied to no request) reaches the client', async () => {
    const t = await connect();
    await t.client.callTool({ name: 'add_tool', arguments: { name: 'late' } });
    await t.changes.until(() => t.listChanged >= 1, 'tools/list_changed');
    expect((await t.client.listTools()).tools.map((x) => x.name)).toContain('late');
  });

  it('cancelling a call aborts the server handler, and the connection goes on', async () => {
    const { client } = await connect();
    const controller = new AbortController();
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    // `slow` announces each step with a progress notification before it sleeps.
    const call = client.callTool({ name: 'slow', arguments: { steps: 1, delay_ms: 600_000 } }, undefined, {
      signal: controller.signal,
      onprogress: () => started(),
    });
    await running;
    controller.abort(new Error('parity: cancelled by the test'));
    await expect(call).rejects.toThrow(/parity: cancelled by the test/);
    // The pipe is ordered: the cancellation is handled before this call.
    expect(JSON.parse(textOf(await client.callTool({ name: 'last_cancelled' })))).toEqual({ cancelled: true, count: 1 });
  });

  it('close() rejects pending requests and ends the server process', async () => {
    const t = await connect();
    const call = t.client.callTool({ name: 'slow', arguments: { steps: 1, delay_ms: 600_000 } });
    await t.client.close();
    await expect(call).rejects.toMatchObject({ code: ErrorCode.ConnectionClosed });
    await t.onClosed;
    expect(isAlive(t.pid)).toBe(false);
  });

  it('a command that does not exist fails connect() with the spawn error', async () => {
    const t = testClient();
    await expect(t.client.connect(maybeOrdered(kind, stdioTransport({ command: '/nonexistent/parity-server', args: [] })))).rejects.toMatchObject({
      code: 'ENOENT',
    });
  });

  it('the server process dying rejects pending requests and closes the client', async () => {
    const t = await connect();
    const call = t.client.callTool({ name: 'slow', arguments: { steps: 1, delay_ms: 600_000 } });
    process.kill(t.pid, 'SIGKILL');
    await expect(call).rejects.toMatchObject({ code: ErrorCode.ConnectionClosed });
    await t.onClosed;
    expect(t.isClosed()).toBe(true);
  });
});
