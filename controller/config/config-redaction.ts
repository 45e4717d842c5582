/**
 * The running config file as a person may see it (GET /manage/v1/config):
 * its text as loaded, comments and order kept, with every value that may be
 * a credential replaced. A value is taken for a credential by its key
 * (`token`, `client_secret`, `password`, …), or because it is an HTTP
 * header or an environment variable given to a backend, or the password in
 * a URL (`redis://user:pass@host`). A reference (`${GITHUB_TOKEN}`,
 * `secret:github`) names a secret without being one, and is kept. The caller
 * then passes the text through the gateway's redactor, which knows every
 * secret the config resolved to, wherever it appears.
 */
import { isMap, isScalar, isSeq, parseDocument, type Node } from 'yaml';

export const REDACTED_VALUE = '<redacted>';

/** Keys whose values are credentials wherever they appear. */
const SECRET_KEY = /(^|_)(token|secret|password|passphrase|api_?key|private_key|credentials?|authorization|cookie)$/i;
/** Maps whose every value may be a credential. */
const SECRET_MAPS = new Set(['headers', 'env']);
/** Only a reference, nothing literal: `${NAME}` or `secret:name`. */
const REFERENCE = /^(\$\{[A-Za-z_][A-Za-z0-9_]*\}|secret:[\w./-]+)$/;
const URL_PASSWORD = /^([a-z][a-z0-9+.-]*:\/\/[^:/@\s]*:)([^@\s]+)(@)/i;

export function redactConfigText(text: string): string {
  const doc = parseDocument(text);
  // A file that does not parse was never loaded; this is only for what was.
  if (doc.errors.length > 0) return REDACTED_VALUE;
  redactNode(doc.contents, undefined, false);
  return doc.toString({ lineWidth: 0 });
}

function redactNode(node: unknown, key: string | undefined, inSecretMap: boolean): void {
  if (isMap(node)) {
    for (const pair of node.items) {
      const k = isScalar(pair.key) ? String(pair.key.value) : undefined;
      const value = pair.value as Node | null;
      if (isScalar(value)) redactScalar(value, k, inSecretMap);
      else redactNode(value, k, k !== undefined && SECRET_MAPS.has(k));
    }
  } else if (isSeq(node)) {
    for (const item of node.items) {
      if (isScalar(item)) redactScalar(item, key, inSecretMap);
      else redactNode(item, key, false);
    }
  }
}

function redactScalar(scalar: { value: unknown }, key: string | undefined, inSecretMap: boolean): void {
  if (typeof scalar.value !== 'string' || scalar.value.length === 0 || REFERENCE.test(scalar.value)) return;
  if (inSecretMap || (key !== undefined && SECRET_KEY.test(key))) {
    scalar.value = REDACTED_VALUE;
    return;
  }
  scalar.value = scalar.value.replace(URL_PASSWORD, `$1${REDACTED_VALUE}$3`);
}
