/**
 * The frame of every page: a skip link, the header (the gateway's health,
 * whether live updates flow, who is signed in), the navigation, and the page
 * the URL fragment names. Until the sign-in is known nothing else is asked;
 * without one, the sign-in form.
 */
import { useEffect, useState } from 'preact/hooks';
import { refreshSession, session, signOut, ApiError } from './lib/api.js';
import { liveState, startLive, stopLive } from './lib/live.js';
import { useStore } from './lib/store.js';
import { href, useRoute } from './lib/router.js';
import { setTheme, theme, type Theme } from './lib/theme.js';
import { Badge } from './components/badge.js';
import { ErrorNote, Loading } from './components/states.js';
import { SignIn } from './pages/sign-in.js';
import { Overview } from './pages/overview.js';
import { Backends } from './pages/backends.js';
import { BackendPage } from './pages/backend.js';
import { Capabilities } from './pages/capabilities.js';
import { ToolPage } from './pages/tool.js';
import { SessionsPage } from './pages/sessions.js';
import { PendingPage } from './pages/pending.js';
import { PluginsPage } from './pages/plugins.js';
import { AuthorizationPage } from './pages/authorization.js';
import { ConfigPage } from './pages/config.js';
import { AuditPage } from './pages/audit.js';
import { EventsPage } from './pages/events.js';

const NAV: Array<[path: string, label: string]> = [
  ['', 'Overview'],
  ['backends', 'Backends'],
  ['capabilities', 'Tools, prompts, resources'],
  ['sessions', 'Sessions and clients'],
  ['pending', 'Pending definitions'],
  ['plugins', 'Plugins'],
  ['authorization', 'Authorization check'],
  ['config', 'Configuration'],
  ['audit', 'Audit trail'],
  ['events', 'Events'],
];

function Page() {
  const { parts } = useRoute();
  const [first = '', second] = parts;
  switch (first) {
    case '':
      return <Overview />;
    case 'backends':
      return second ? <BackendPage name={second} /> : <Backends />;
    case 'capabilities':
      return <Capabilities />;
    case 'tools':
      return second ? <ToolPage name={second} /> : <Capabilities />;
    case 'sessions':
      return <SessionsPage />;
    case 'pending':
      return <PendingPage />;
    case 'plugins':
      return <PluginsPage />;
    case 'authorization':
      return <AuthorizationPage />;
    case 'config':
      return <ConfigPage />;
    case 'audit':
      return <AuditPage />;
    case 'events':
      return <EventsPage />;
    default:
      return (
        <section>
          <h1>Not found</h1>
          <p>
            There is no page “{parts.join('/')}”. <a href={href()}>Go to the overview.</a>
          </p>
        </section>
      );
  }
}

function Header() {
  const s = useStore(session);
  const live = useStore(liveState);
  const t = useStore(theme);
  const [leaving, setLeaving] = useState(false);
  return (
    <header class="top">
      <a class="brand" href={href()}>
        MCP gateway
      </a>
      <span class="live" role="status" aria-live="polite" title="Updates arrive from the gateway's event stream">
        <Badge value={live === 'live' ? 'live' : live} label={live === 'live' ? 'Live' : live === 'off' ? 'Not live' : 'Reconnecting…'} />
      </span>
      <span class="spacer" />
      <label class="theme">
        <span>Theme</span>
        <select value={t} onChange={(e) => setTheme(e.currentTarget.value as Theme)}>
          <option value="system">System</option>
          <option value="light">Light</option>
          <option value="dark">Dark</option>
        </select>
      </label>
      {s?.signed_in && (
        <span class="who">
          <span data-testid="who">
            {s.credential === 'open' ? 'Open API (no sign-in)' : (s.user ?? 'management token')} · <strong>{s.role}</strong>
          </span>
          {s.credential === 'console_session' && (
            <button
              type="button"
              disabled={leaving}
              onClick={() => {
                setLeaving(true);
                stopLive();
                void signOut().finally(() => setLeaving(false));
              }}
            >
              Sign out
            </button>
          )}
        </span>
      )}
    </header>
  );
}

export function App() {
  const s = useStore(session);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const { parts } = useRoute();
  useEffect(() => {
    refreshSession().catch((err: ApiError) => setError(err));
  }, []);
  useEffect(() => {
    if (s?.signed_in) startLive();
    else stopLive();
  }, [s?.signed_in]);

  let main;
  if (error && !s) main = <ErrorNote error={error} retry={() => void refreshSession().then(() => setError(undefined), setError)} />;
  else if (!s) main = <Loading what="your sign-in" />;
  else if (!s.signed_in || parts[0] === 'sign-in') main = <SignIn />;
  else main = <Page />;

  return (
    <>
      <a class="skip" href="#main">
        Skip to the page
      </a>
      <Header />
      <div class="layout">
        {s?.signed_in && (
          <nav aria-label="Pages">
            <ul>
              {NAV.map(([path, label]) => (
                <li key={path}>
                  <a
                    href={href(...(path ? [path] : []))}
                    aria-current={(parts[0] ?? '') === path || (path === 'capabilities' && parts[0] === 'tools') ? 'page' : undefined}
                  >
                    {label}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
        )}
        <main id="main" tabIndex={-1}>
          {main}
        </main>
      </div>
    </>
  );
}
