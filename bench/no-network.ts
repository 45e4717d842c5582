/**
 * Preloaded (`node --import`) into mcp-hub during the bench: the bench talks
 * only to loopback. mcp-hub fetches a marketplace catalog at start-up when its
 * cache is stale; the bench seeds a fresh cache, and this guard answers any
 * other non-loopback fetch locally with a 503 instead of letting it out.
 */
const realFetch = globalThis.fetch;
const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|\[::1\])$/;

globalThis.fetch = (input: string | URL | Request, init?: RequestInit) => {
  const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
  if (!LOOPBACK.test(url.hostname)) return Promise.resolve(new Response('{"error":"bench: no network"}', { status: 503 }));
  return realFetch(input, init);
};
