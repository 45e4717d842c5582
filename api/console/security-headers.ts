/**
 * The headers every console answer carries. The Content-Security-Policy lets
 * the page run only its own files from this origin: no inline script or
 * style (the build emits none), no eval, no other host (no CDN, no fonts or
 * analytics), no framing; images may be `data:` URLs, which is how a tool's
 * image result is shown. The page talks only to this gateway (`connect-src 'self'`).
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "media-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=()',
};

/** Hashed build files never change: a year, immutable. Anything else (index.html) is checked every time. */
export const cacheControlOf = (path: string): string => (/[/\\]assets[/\\]/.test(path) ? 'public, max-age=31536000, immutable' : 'no-cache');
