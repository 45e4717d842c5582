/**
 * Plans of the suite's auth client scenarios (`auth/...`). In each one the
 * scenario's MCP server wants OAuth and comes with its own authorization
 * server; the gateway is the OAuth client. A plan gives the backend's `auth:`
 * config (from the suite's context where it passes one) and plays the user:
 * consent when the gateway asks for it (./gateway-user.ts), then use the
 * backend's tool through the gateway. The suite judges what the gateway sent
 * to both servers.
 */
import { createPrivateKey } from 'node:crypto';
import { signingAlgOf } from '../../runtime/auth/private-key-jwt.js';
import type { BackendAuth } from '../../schemas/config.js';
import { ReauthRefused } from './gateway-user.js';
import { callExposedTool, type ClientScenarioPlan, type RunnablePlan, type ScenarioContext, type ScenarioSession } from './scenario-plan.js';

/** The one tool every auth scenario's MCP server has. */
const TOOL = 'test-tool';

/** The Client ID Metadata Document URL auth/basic-cimd expects as the client_id (the suite's constant; nobody fetches it). */
const CIMD_URL = 'https://conformance-test.local/client-metadata.json';

type OAuthConfig = Extract<BackendAuth, { type: 'oauth' }>;

function oauth(extra: Omit<OAuthConfig, 'type'> = {}): OAuthConfig {
  return { type: 'oauth', ...extra };
}

function fromContext(context: ScenarioContext, key: string): string {
  const value = context[key];
  if (typeof value !== 'string' || value === '') throw new Error(`the suite's context for ${context.name} has no ${key}`);
  return value;
}

/** The usual story: consent once if the gateway asks (everything else is discovered), then use the tool. */
async function consentThenCall({ client, user }: ScenarioSession): Promise<void> {
  await user.ensureReady();
  await callExposedTool(client, TOOL);
}

/** Discovery, dynamic registration, PKCE, scope choice: all the gateway's own work from `auth: { type: oauth }`. */
const discoverEverything: RunnablePlan = { backendAuth: () => oauth(), run: consentThenCall };

/** Whether a call failed because the backend needs (more) consent: the gateway's AuthorizationRequired error. */
function needsAuthorization(err: unknown): boolean {
  return err instanceof Error && /needs authorization/.test(err.message);
}

export const AUTH_SCENARIO_PLANS: Record<string, ClientScenarioPlan> = {
  // Where the protected resource and authorization server metadata are found.
  'auth/metadata-default': discoverEverything,
  'auth/metadata-var1': discoverEverything,
  'auth/metadata-var2': discoverEverything,
  'auth/metadata-var3': discoverEverything,
  'auth/2025-03-26-oauth-metadata-backcompat': discoverEverything,
  'auth/2025-03-26-oauth-endpoint-fallback': discoverEverything,

  // Which scope the gateway asks for: WWW-Authenticate, else scopes_supported, else none.
  'auth/scope-from-www-authenticate': discoverEverything,
  'auth/scope-from-scopes-supported': discoverEverything,
  'auth/scope-omitted-when-undefined': discoverEverything,

  // How a dynamically registered client authenticates at the token endpoint.
  'auth/token-endpoint-auth-basic': discoverEverything,
  'auth/token-endpoint-auth-post': discoverEverything,
  'auth/token-endpoint-auth-none': discoverEverything,

  // Refresh tokens (SEP-2207): offline_access only where the authorization server lists it.
  'auth/offline-access-scope': discoverEverything,
  'auth/offline-access-not-supported': discoverEverything,

  'auth/basic-cimd': { backendAuth: () => oauth({ client_metadata_url: CIMD_URL }), run: consentThenCall },

  'auth/pre-registration': {
    backendAuth: (context) => oauth({ client_id: fromContext(context, 'client_id'), client_secret: fromContext(context, 'client_secret') }),
    run: consentThenCall,
  },

  // Listing tools needs mcp:basic, calling one also mcp:write: the call fails
  // with the scope named; the operator sees that on the backend (Authenticated
  // false, InsufficientScope, while it stays Ready) and consents again (a new
  // authorization asking for both), and the call goes through.
  'auth/scope-step-up': {
    backendAuth: () => oauth(),
    async run(session) {
      const { client, user } = session;
      await user.ensureReady();
      try {
        await callExposedTool(client, TOOL);
        throw new Error(`${TOOL} worked with the first token, which the server should have refused (403 insufficient_scope)`);
      } catch (err) {
        if (!needsAuthorization(err)) throw err;
      }
      const seen = await user.stepUpNeeded();
      if (!/reauth/.test(seen.message)) throw new Error(`the InsufficientScope condition does not say what to run: ${seen.message}`);
      const after = await user.consent();
      if (after.kind !== 'ready') throw new Error(`after the second consent the backend is not Ready: ${after.message}`);
      await callExposedTool(client, TOOL);
    },
  },

  // The server refuses every token with 403 insufficient_scope for a scope
  // that was granted. The gateway must not loop through authorizations: after
  // the user's one consent it parks the backend and waits for the user again.
  'auth/scope-retry-limit': {
    backendAuth: () => oauth(),
    async run({ user }) {
      const first = await user.settled();
      if (first.kind !== 'authorization_required') throw new Error(`expected the backend to wait for consent, got ${JSON.stringify(first)}`);
      const after = await user.consent();
      if (after.kind !== 'authorization_required')
        throw new Error(`expected the backend to wait for the user again after a refused token, got ${JSON.stringify(after)}`);
    },
  },

  // The protected resource metadata names another resource: the gateway must
  // refuse to authorize for it, both when connecting and when asked to.
  'auth/resource-mismatch': {
    backendAuth: () => oauth(),
    async run({ user }) {
      const state = await user.settled();
      if (state.kind === 'ready') throw new Error('the backend is Ready although its metadata names another resource');
      if (!/does not match/.test(state.message)) throw new Error(`the backend failed for another reason than the resource: ${state.message}`);
      try {
        await user.consent();
      } catch (err) {
        if (err instanceof ReauthRefused && /does not match/.test(err.reason)) return;
        throw err;
      }
      throw new Error('the gateway started an authorization for a mismatched resource');
    },
  },

  'auth/client-credentials-basic': {
    backendAuth: (context) =>
      oauth({ grant: 'client_credentials', client_id: fromContext(context, 'client_id'), client_secret: fromContext(context, 'client_secret') }),
    run: consentThenCall,
  },

  // The pre-registered client signs a JWT with its private key (RFC 7523) instead of sending a secret.
  'auth/client-credentials-jwt': {
    backendAuth(context) {
      const privateKey = fromContext(context, 'private_key_pem');
      const alg = signingAlgOf(createPrivateKey(privateKey));
      if (alg !== fromContext(context, 'signing_algorithm'))
        throw new Error(`the gateway would sign with ${alg}, the suite expects ${String(context.signing_algorithm)}`);
      return oauth({ grant: 'client_credentials', client_id: fromContext(context, 'client_id'), private_key: privateKey });
    },
    run: consentThenCall,
  },

  'auth/cross-app-access-complete-flow': {
    unsupported: 'the gateway has no grant for enterprise-managed authorization (SEP-990: token exchange at the IdP, then a jwt-bearer grant)',
  },
};
