/**
 * The operator console (docs/console.md): signs in with an API key kept in this browser tab's
 * sessionStorage only (never a cookie, never localStorage), then reads and acts through the
 * public /platform API with that key. `/console#key=<key>` signs in and removes the key from the
 * address bar at once.
 */
import './styles.css';
import type { JSX } from 'preact';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { Api, ApiError, describeError } from './api.ts';
import { TracePage, TransactionPage } from './detail.tsx';
import { ErrorsPage, FeedPage, OverviewPage, PartnersPage, ResultsPage, TransactionsPage } from './pages.tsx';
import { href, SessionContext, useRoute, type Session } from './ui.tsx';

const STORE = 'tdx.console.key';

/** Takes a key from `#key=…` into sessionStorage and rewrites the address without it. */
function takeKeyFromAddress(): void {
  const m = /^#key=([^&]+)/.exec(location.hash);
  if (!m?.[1]) return;
  sessionStorage.setItem(STORE, decodeURIComponent(m[1]));
  history.replaceState(null, '', `${location.pathname}${location.search}#/`);
}

async function open(key: string): Promise<Session> {
  const api = new Api(key);
  try {
    await api.get('/platform/edi_transactions', { limit: 1, compact: true });
    return { api, scope: 'full' };
  } catch (e) {
    // a sandbox key is refused every list but the results its sandbox received
    if (e instanceof ApiError && e.status === 403) {
      await api.get('/platform/results', { limit: 1, compact: true });
      return { api, scope: 'sandbox' };
    }
    throw e;
  }
}

function SignIn({ onKey, error }: { onKey: (key: string) => void; error: string | null }): JSX.Element {
  const [key, setKey] = useState('');
  return (
    <main id="main" class="signin">
      <h1>tdx console</h1>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (key.trim()) onKey(key.trim());
        }}
      >
        <label for="key">API key</label>
        <input id="key" type="password" autoComplete="off" value={key} onInput={(e) => setKey(e.currentTarget.value)} />
        <button type="submit">Sign in</button>
        <p class="muted">The key is kept in this tab only, until you sign out or close it. The console can see and do exactly what the key allows.</p>
        {error ? (
          <p class="error" role="alert">
            {error}
          </p>
        ) : null}
      </form>
    </main>
  );
}

const NAV: readonly { path: string; label: string; full: boolean }[] = [
  { path: '/', label: 'Overview', full: true },
  { path: '/transactions', label: 'Transactions', full: true },
  { path: '/feed', label: 'Feed', full: true },
  { path: '/errors', label: 'Errors', full: true },
  { path: '/results', label: 'Results', full: false },
  { path: '/partners', label: 'Partners', full: true },
];

function Page({ session }: { session: Session }): JSX.Element {
  const route = useRoute();
  const p = route.path;
  useEffect(() => {
    document.getElementById('main')?.focus();
  }, [p]);
  if (session.scope === 'sandbox') return <ResultsPage />;
  const tx = /^\/transactions\/([^/]+)$/.exec(p);
  if (tx?.[1]) return <TransactionPage id={decodeURIComponent(tx[1])} />;
  const trace = /^\/traces\/([^/]+)$/.exec(p);
  if (trace?.[1]) return <TracePage guid={decodeURIComponent(trace[1])} />;
  switch (p) {
    case '/transactions':
      return <TransactionsPage route={route} />;
    case '/feed':
      return <FeedPage />;
    case '/errors':
      return <ErrorsPage />;
    case '/results':
      return <ResultsPage />;
    case '/partners':
      return <PartnersPage />;
    default:
      return <OverviewPage />;
  }
}

function Shell({ session, signOut }: { session: Session; signOut: () => void }): JSX.Element {
  const route = useRoute();
  const section = route.path.startsWith('/transactions') ? '/transactions' : route.path;
  return (
    <>
      <a class="skip" href="#main" onClick={(e) => (e.preventDefault(), document.getElementById('main')?.focus())}>
        Skip to content
      </a>
      <header>
        <a class="brand" href={href('/')}>
          tdx console
        </a>
        <nav aria-label="Sections">
          <ul>
            {NAV.filter((n) => session.scope === 'full' || !n.full).map((n) => (
              <li key={n.path}>
                <a href={href(n.path)} aria-current={section === n.path ? 'page' : undefined}>
                  {n.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <button type="button" class="secondary small" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        <Page session={session} />
      </main>
    </>
  );
}

function App(): JSX.Element {
  const [session, setSession] = useState<Session | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [checking, setChecking] = useState(() => sessionStorage.getItem(STORE) !== null);
  const signIn = (key: string): void => {
    setChecking(true);
    open(key).then(
      (s) => {
        sessionStorage.setItem(STORE, key);
        setError(null);
        setSession(s);
        setChecking(false);
      },
      (e: unknown) => {
        sessionStorage.removeItem(STORE);
        setError(describeError(e));
        setChecking(false);
      },
    );
  };
  useEffect(() => {
    const key = sessionStorage.getItem(STORE);
    if (key) signIn(key);
  }, []);
  if (session)
    return (
      <SessionContext.Provider value={session}>
        <Shell
          session={session}
          signOut={() => {
            sessionStorage.removeItem(STORE);
            setSession(null);
            location.hash = '#/';
          }}
        />
      </SessionContext.Provider>
    );
  if (checking)
    return (
      <main id="main">
        <p role="status">Signing in…</p>
      </main>
    );
  return <SignIn onKey={signIn} error={error} />;
}

takeKeyFromAddress();
const root = document.getElementById('app');
if (root) render(<App />, root);
