/**
 * fetch with a signal of the request's own, for the load generator's SDK
 * clients (1.x and v2). The SDKs' HTTP transports hand every POST the one
 * signal they keep for close() (v2 in a 2025-11-25 session), and undici
 * adds an abort listener to it per request that goes only at garbage
 * collection: thousands pile up (MaxListenersExceededWarning), and each add
 * walks the list, so the load generator's cost per call would grow with the
 * phase. A dependent signal (`AbortSignal.any`) still aborts on close(), is
 * held by its parent only weakly, and carries undici's listener away with it.
 */
export const ownSignalFetch: typeof fetch = (url, init) => fetch(url, init?.signal ? { ...init, signal: AbortSignal.any([init.signal]) } : init);
