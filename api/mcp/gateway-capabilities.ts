/**
 * What the gateway says about itself on /mcp and /sse: the capabilities it
 * serves (the same to every client: it routes each method to whichever
 * backend has the name) and the protocol revisions it speaks.
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  LOG_LEVEL_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/server';
import { GATEWAY_NAME, GATEWAY_VERSION } from '../../runtime/version.js';

/** Who the gateway says it is (`serverInfo` of initialize, and of every 2026-07-28 result's `_meta`). */
export const GATEWAY_SERVER_INFO = Object.freeze({ name: GATEWAY_NAME, version: GATEWAY_VERSION });

export const GATEWAY_CAPABILITIES = {
  tools: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: true },
  logging: {},
  completions: {},
};

/** The stateless revision, served per request without a session. */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';

/** The revisions that start a session with initialize (2025-11-25 and earlier), newest first, as the SDK serves them. */
export const LEGACY_PROTOCOL_VERSIONS: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS;

/** Every revision the gateway serves, newest first (`server/discover`, and -32022's `supported`). */
export const SERVED_PROTOCOL_VERSIONS: readonly string[] = [MODERN_PROTOCOL_VERSION, ...LEGACY_PROTOCOL_VERSIONS];

/** The `_meta` keys a 2026-07-28 request carries as its envelope, in the order the SDK lifts them out of the params. */
export const ENVELOPE_META_KEYS: readonly string[] = [PROTOCOL_VERSION_META_KEY, CLIENT_INFO_META_KEY, CLIENT_CAPABILITIES_META_KEY, LOG_LEVEL_META_KEY];
