/**
 * Each gateway has its own redactor: two gateways in one process (tests, an
 * embedding application) learn their own secrets, and neither's set grows
 * with the other's. Both gateways are real: started in-process from their
 * config files, with a literal credential in a backend header.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { REDACTED } from '../../../../runtime/observability/logging/redactor.js';
import { startGateway, type Harness } from '../../../helpers/gateway-harness.js';

const A_SECRET = 'gateway-a-header-secret-1f3e';
const B_SECRET = 'gateway-b-header-secret-9c7d';

/** An HTTP backend nobody listens for: its header is a credential the config carries. */
const withHeader = (token: string) => ({
  remote: { type: 'streamable-http', url: 'http://127.0.0.1:9/mcp', headers: { Authorization: `Bearer ${token}` }, enabled: false },
});

describe('one redactor per gateway', () => {
  const started: Harness[] = [];
  afterAll(async () => Promise.all(started.map((h) => h.close())));

  it('redacts its own credentials and leaves another gateway’s alone', async () => {
    const a = await startGateway({ backends: withHeader(A_SECRET) });
    started.push(a);
    const b = await startGateway({ backends: withHeader(B_SECRET) });
    started.push(b);
    expect(a.gateway.redactor.redact(`${A_SECRET} ${B_SECRET}`)).toBe(`${REDACTED} ${B_SECRET}`);
    expect(b.gateway.redactor.redact(`${A_SECRET} ${B_SECRET}`)).toBe(`${A_SECRET} ${REDACTED}`);
    // What each logs goes through its own: a's secret in a's log is gone.
    a.gateway.logger.info(`header was ${A_SECRET}`);
    await expect.poll(() => a.logs.some((l) => l.includes(`header was ${REDACTED}`))).toBe(true);
  });
});
