/** Reads the gateway's token file the way a person would look at it. */
import { readFileSync } from 'node:fs';
import type { StoredAuthorization } from '../../runtime/auth/token-store.js';

export function readTokenFile(file: string): StoredAuthorization {
  return JSON.parse(readFileSync(file, 'utf8')) as StoredAuthorization;
}
