/**
 * Where a backend's `on_behalf_of` exchanges tokens: its `token_endpoint`,
 * or the one its `issuer` publishes (RFC 8414 metadata, else OpenID
 * discovery, through the MCP SDK's discovery). A discovered endpoint is kept
 * per issuer; a failed discovery is not, so the next call tries again.
 */
import { discoverAuthorizationServerMetadata } from '@modelcontextprotocol/client';
import type { TokenExchangeSpec } from '../../schemas/config.js';
import { TokenUnavailableError } from './errors.js';

export class TokenEndpoints {
  private readonly discovered = new Map<string, Promise<string>>();

  constructor(private readonly fetchFn: typeof fetch) {}

  resolve(backend: string, spec: Pick<TokenExchangeSpec, 'token_endpoint' | 'issuer'>): Promise<string> {
    if (spec.token_endpoint !== undefined) return Promise.resolve(spec.token_endpoint);
    const issuer = spec.issuer ?? '';
    let endpoint = this.discovered.get(issuer);
    if (!endpoint) {
      endpoint = this.discover(backend, issuer);
      endpoint.catch(() => this.discovered.delete(issuer));
      this.discovered.set(issuer, endpoint);
    }
    return endpoint;
  }

  private async discover(backend: string, issuer: string): Promise<string> {
    let metadata: Awaited<ReturnType<typeof discoverAuthorizationServerMetadata>>;
    try {
      metadata = await discoverAuthorizationServerMetadata(issuer, { fetchFn: this.fetchFn });
    } catch (err) {
      throw new TokenUnavailableError(backend, `the metadata of ${issuer} could not be read: ${(err as Error).message}`);
    }
    if (!metadata?.token_endpoint) throw new TokenUnavailableError(backend, `${issuer} publishes no authorization server metadata with a token_endpoint`);
    return metadata.token_endpoint;
  }
}
