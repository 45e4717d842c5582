// Build step of the Containerfile: writes the CA bundle the image trusts on top
// of Node's own roots, /usr/local/share/mcp-gateway/ca.pem (NODE_EXTRA_CA_CERTS
// names it from then on): what the base image already trusted through
// NODE_EXTRA_CA_CERTS (a base made with `gateway build --base-from-host`
// carries the host's bundle), plus the PEM text of the EXTRA_CA_CERTS build
// argument (a TLS-inspecting proxy, an internal PKI). npm trusts it while the
// image is built, the gateway while it runs. Empty when there is neither.
// Plain Node, no shell tools: a base made from a host has node, npm and sh only.
import fs from 'node:fs';

const TARGET = '/usr/local/share/mcp-gateway/ca.pem';
const parts = [];
const inherited = process.env.NODE_EXTRA_CA_CERTS;
if (inherited && inherited !== TARGET && fs.existsSync(inherited)) parts.push(fs.readFileSync(inherited, 'utf8'));
const extra = process.env.EXTRA_CA_CERTS ?? '';
if (extra.trim() !== '') {
  if (!extra.includes('-----BEGIN CERTIFICATE-----')) {
    console.error('EXTRA_CA_CERTS must be PEM text (-----BEGIN CERTIFICATE-----…), e.g. --build-arg EXTRA_CA_CERTS="$(cat ca.pem)"');
    process.exit(1);
  }
  parts.push(extra);
}
fs.mkdirSync('/usr/local/share/mcp-gateway', { recursive: true });
fs.writeFileSync(TARGET, parts.map((p) => `${p.trim()}\n`).join(''), { mode: 0o644 });
console.log(`${TARGET}: ${(parts.join('').match(/-----BEGIN CERTIFICATE-----/g) ?? []).length} certificates`);
