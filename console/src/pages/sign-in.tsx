/**
 * Signing in: with a token (the management token, or one `incoming_auth`
 * accepts when roles are configured), exchanged at once for a session
 * cookie the page cannot read; or through the identity provider. The token
 * is sent once and not kept anywhere.
 */
import { useRef, useState } from 'preact/hooks';
import { ApiError, session, signIn } from '../lib/api.js';
import { useStore } from '../lib/store.js';
import { href, navigate, useRoute } from '../lib/router.js';
import { advice } from '../components/states.js';

export function SignIn() {
  const s = useStore(session);
  const { params } = useRoute();
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const tokenRef = useRef<HTMLInputElement>(null);
  const providerError = params.get('error');

  const providerAlert = providerError && (
    <div class="state state-error" role="alert">
      <p>
        <strong>{providerError}</strong>
      </p>
      <p>Try again, or ask an administrator for a role (server.management.roles).</p>
    </div>
  );
  if (s?.signed_in) {
    return (
      <section>
        <h1>Signed in</h1>
        {providerAlert}
        <p>
          You are signed in as {s.user ?? 'the holder of the management token'} ({s.role}). <a href={href()}>Go to the overview.</a>
        </p>
      </section>
    );
  }
  const submit = async (e: Event) => {
    e.preventDefault();
    const input = tokenRef.current!;
    setBusy(true);
    setError(undefined);
    try {
      await signIn(input.value);
      input.value = '';
      navigate(href());
    } catch (err) {
      setError(err as ApiError);
      input.focus();
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="sign-in">
      <h1>Sign in to the gateway console</h1>
      {providerAlert}
      {s?.sign_in.identity_provider && (
        <p>
          <a class="button primary" href={s.sign_in.identity_provider.login_url}>
            Sign in with {s.sign_in.identity_provider.issuer}
          </a>
        </p>
      )}
      {s?.sign_in.token && (
        <form onSubmit={(e) => void submit(e)} aria-describedby="token-help">
          <div class="field">
            <label for="token">Token</label>
            <input id="token" ref={tokenRef} type="password" autoComplete="off" required spellcheck={false} />
            <span class="help" id="token-help">
              The management token (GATEWAY_MGMT_TOKEN), or your own token when the gateway maps it to a role. It is exchanged for a session that ends after a
              while without use, or when you sign out; the page never stores it.
            </span>
          </div>
          <button class="primary" type="submit" disabled={busy}>
            {busy ? 'Signing in…' : 'Sign in'}
          </button>
          {error && (
            <div class="state state-error" role="alert">
              <p>
                <strong>{error.message}</strong>
              </p>
              <p>{error.status === 401 ? 'Check the token and try again.' : advice(error)}</p>
            </div>
          )}
        </form>
      )}
    </section>
  );
}
