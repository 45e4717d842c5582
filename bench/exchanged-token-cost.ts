/**
 * What a backend call with `auth.on_behalf_of.type: token_exchange` adds
 * once the caller's token is exchanged: the cached token looked up
 * (TokenExchanger.tokenFor: the key, one LRU get, a resolved promise
 * awaited), timed in this process over many calls like bench/auth-path.ts,
 * against a real token exchange server (test/fixtures/token-exchange-server.ts)
 * that must see exactly one exchange.
 */
import { TokenExchanger } from '../runtime/auth/token-exchange.js';
import { startTokenExchangeServer, TOKEN_EXCHANGE_GRANT } from '../test/fixtures/token-exchange-server.js';
import { median } from './stats.js';
import { timed, type AuthPathCost } from './auth-path.js';

export async function exchangedTokenCost(load: { warmup: number; calls: number; repeats: number }): Promise<AuthPathCost> {
  const audience = 'http://bench-backend.test';
  const as = await startTokenExchangeServer({
    gatewayAudience: 'http://127.0.0.1:9000/mcp',
    audiences: [audience],
    clients: { gateway: 'bench-secret-0123456789' },
  });
  try {
    const exchanger = new TokenExchanger();
    const spec = {
      type: 'token_exchange' as const,
      token_endpoint: as.tokenEndpoint,
      client_id: 'gateway',
      client_secret: 'bench-secret-0123456789',
      audience,
    };
    const caller = { type: 'oidc', userId: 'bench', token: await as.userToken('bench') };
    let tokens = 0;
    const calls = async (n: number) => {
      for (let k = 0; k < n; k++) if ((await exchanger.tokenFor('h', spec, caller)).length > 0) tokens++;
    };
    const runs = await timed(calls, load);
    if (as.calls(TOKEN_EXCHANGE_GRANT) !== 1) throw new Error(`${as.calls(TOKEN_EXCHANGE_GRANT)} exchanges for one caller: the cache did not hold`);
    if (tokens !== load.warmup + load.calls * load.repeats) throw new Error('a call got no token');
    return { calls: load.calls, repeats: load.repeats, us_per_call: median(runs) };
  } finally {
    await as.close();
  }
}
