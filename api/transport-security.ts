/**
 * DNS-rebinding protection (MCP 2025-11-25: servers MUST validate Origin):
 * every request's `Host` must name this gateway, and a browser's `Origin`,
 * when sent, must be one the operator allowed. A web page on an attacker's
 * domain that resolves to 127.0.0.1 then reaches nothing: its requests carry
 * the attacker's host name.
 *
 * Allowed hosts: the loopback names (any port) when bound to a loopback
 * address; otherwise the bind host itself (for a wildcard bind, every address
 * of this machine and its host name); plus `server.allowed_hosts` (`name` for
 * any port, `name:port` for one). Allowed origins: `server.allowed_origins`,
 * plus any origin whose host is an allowed host. Requests without `Origin`
 * (non-browser clients) are judged by `Host` alone.
 */
import { hostname, networkInterfaces } from 'node:os';
import { isIP } from 'node:net';
import { isLoopbackHost } from '../runtime/net/loopback.js';

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

export interface AllowedPeers {
  hosts?: readonly string[];
  origins?: readonly string[];
  /** `server.public_url`: where browsers reach the gateway, so its host is this gateway's too (any port it names). */
  publicUrl?: string;
}

export type SecurityVerdict = { ok: true } | { ok: false; reason: string };

export class TransportSecurity {
  private readonly bindHosts: Set<string>;

  constructor(bindHost: string) {
    this.bindHosts = new Set(defaultHosts(bindHost));
  }

  /** Judges one request by its Host and Origin headers against the current settings (they follow reloads). */
  check(host: string | undefined, origin: string | undefined, allowed: AllowedPeers): SecurityVerdict {
    if (!host || !(this.hostAllowed(host, allowed.hosts ?? []) || isPublicHost(host, allowed.publicUrl))) {
      return { ok: false, reason: `Host header ${host ? `'${host}'` : '(missing)'} is not allowed (see server.allowed_hosts)` };
    }
    if (origin !== undefined && !this.originAllowed(origin, allowed)) {
      return { ok: false, reason: `Origin '${origin}' is not allowed (see server.allowed_origins)` };
    }
    return { ok: true };
  }

  private hostAllowed(hostHeader: string, configured: readonly string[]): boolean {
    const { name, port } = splitHost(hostHeader.toLowerCase());
    if (this.bindHosts.has(name)) return true;
    return configured.some((entry) => {
      const e = splitHost(entry.toLowerCase());
      return e.name === name && (e.port === undefined || e.port === port);
    });
  }

  private originAllowed(origin: string, allowed: AllowedPeers): boolean {
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false; // `null` (sandboxed frames, file://) and garbage
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
    const normalized = `${url.protocol}//${url.host}`;
    if ((allowed.origins ?? []).some((o) => o.toLowerCase().replace(/\/$/, '') === normalized)) return true;
    return this.hostAllowed(url.host, allowed.hosts ?? []) || isPublicHost(url.host, allowed.publicUrl);
  }
}

/** The host (`name[:port]`) of the last public URL asked about: parsed once, not per request. */
let publicHost: { url: string; host: string } | undefined;

function isPublicHost(hostHeader: string, publicUrl: string | undefined): boolean {
  if (publicUrl === undefined) return false;
  if (publicHost?.url !== publicUrl) publicHost = { url: publicUrl, host: new URL(publicUrl).host.toLowerCase() };
  return hostHeader.toLowerCase() === publicHost.host;
}

/** `name[:port]` with IPv6 literals kept in brackets, as they appear in a Host header. */
function splitHost(value: string): { name: string; port?: string } {
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(value.trim());
  if (!m) return { name: value };
  return { name: m[1]!, port: m[2] };
}

const bracket = (address: string) => (isIP(address) === 6 ? `[${address}]` : address);

function defaultHosts(bindHost: string): string[] {
  if (isLoopbackHost(bindHost)) return LOOPBACK_NAMES;
  const bare = bindHost.replace(/^\[|\]$/g, '');
  if (bare === '0.0.0.0' || bare === '::') {
    // A wildcard bind is reachable at every address of the machine, by IP or by its own host name.
    const addresses = Object.values(networkInterfaces())
      .flat()
      .filter((i) => i !== undefined)
      .map((i) => bracket(i.address.toLowerCase()));
    return [...LOOPBACK_NAMES, hostname().toLowerCase(), ...addresses];
  }
  return [bracket(bare.toLowerCase())];
}
