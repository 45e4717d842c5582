/**
 * private_key_jwt client authentication (RFC 7523 §2.2): a pre-registered
 * client proves who it is at the token endpoint with a short-lived JWT
 * signed by its private key, instead of a shared secret. The SDK builds and
 * signs the assertion (`createPrivateKeyJwtAuth`); this file checks the
 * config and picks the signing algorithm from the key, so the config needs
 * nothing but the key.
 */
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { createPrivateKeyJwtAuth, type AddClientAuthentication } from '@modelcontextprotocol/client';
import type { OAuthSpec } from './oauth-backend-state.js';

/** The JWS algorithm for each kind of key the SDK can sign with (RS*, PS*, ES*). */
const EC_CURVE_ALGS: Record<string, string> = { prime256v1: 'ES256', secp384r1: 'ES384', secp521r1: 'ES512' };

export function signingAlgOf(key: KeyObject): string {
  const type = key.asymmetricKeyType;
  if (type === 'rsa') return 'RS256';
  if (type === 'rsa-pss') return 'PS256';
  const curve = key.asymmetricKeyDetails?.namedCurve;
  if (type === 'ec' && curve && EC_CURVE_ALGS[curve]) return EC_CURVE_ALGS[curve];
  throw new Error(`auth.private_key: a ${type ?? 'unknown'}${curve ? ` (${curve})` : ''} key cannot sign a client assertion; use RSA or EC P-256/384/521`);
}

/**
 * The SDK's client authentication for `spec`, or undefined when it
 * authenticates otherwise. Throws when the config asks for private_key_jwt
 * but cannot do it (no key, no client_id, not a private key).
 */
export function privateKeyJwtAuth(backend: string, spec: OAuthSpec): AddClientAuthentication | undefined {
  const wanted = spec.token_endpoint_auth_method === 'private_key_jwt';
  if (!spec.private_key) {
    if (wanted) throw new Error(`Backend '${backend}': token_endpoint_auth_method private_key_jwt needs auth.private_key`);
    return undefined;
  }
  if (spec.token_endpoint_auth_method && !wanted)
    throw new Error(`Backend '${backend}': auth.private_key is for private_key_jwt, not ${spec.token_endpoint_auth_method}`);
  if (!spec.client_id) throw new Error(`Backend '${backend}': auth.private_key needs auth.client_id (the client its public key is registered for)`);
  let key: KeyObject;
  try {
    key = createPrivateKey(spec.private_key);
  } catch (err) {
    throw new Error(`Backend '${backend}': auth.private_key is not a PEM private key (${(err as Error).message})`, { cause: err });
  }
  // PKCS#8 is the one PEM form the SDK's signer reads; a PKCS#1 or SEC1 key is converted.
  const pkcs8 = key.export({ format: 'pem', type: 'pkcs8' }).toString();
  return createPrivateKeyJwtAuth({ issuer: spec.client_id, subject: spec.client_id, privateKey: pkcs8, alg: signingAlgOf(key) });
}
