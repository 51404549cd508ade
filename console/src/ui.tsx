/** Small shared pieces of the console's pages: routing in the fragment, loading, errors, tables. */
import type { ComponentChildren, JSX } from 'preact';
import { createContext } from 'preact';
import { useContext, useEffect, useRef, useState } from 'preact/hooks';
import { type Api, describeError } from './api.ts';

export interface Session {
  readonly api: Api;
  /** "sandbox" when the key is refused the transaction list (403), else "full". */
  readonly scope: 'full' | 'sandbox';
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error('no session');
  return s;
}

export interface Route {
  readonly path: string;
  readonly query: URLSearchParams;
}

export function currentRoute(): Route {
  const h = location.hash.replace(/^#/, '');
  const [path = '/', query = ''] = h.split('?');
  return { path: path.startsWith('/') ? path : '/', query: new URLSearchParams(query) };
}

export function useRoute(): Route {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const on = (): void => setRoute(currentRoute());
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}

export function href(path: string, query: Readonly<Record<string, string | undefined>> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v) q.set(k, v);
  const s = q.toString();
  return `#${path}${s ? `?${s}` : ''}`;
}

export type Loaded<T> = { state: 'loading' } | { state: 'error'; error: unknown } | { state: 'ready'; value: T };

/** Runs `load` whenever `deps` (JSON values) change, and on the returned reload; the latest answer wins. */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]): [Loaded<T>, () => void] {
  const [value, setValue] = useState<Loaded<T>>({ state: 'loading' });
  const [tick, setTick] = useState(0);
  const key = JSON.stringify(deps);
  const shown = useRef(key);
  useEffect(() => {
    let live = true;
    // new inputs show "Loading"; a reload of the same ones keeps the page until the answer
    if (shown.current !== key) setValue({ state: 'loading' });
    shown.current = key;
    load().then(
      (v) => live && setValue({ state: 'ready', value: v }),
      (e: unknown) => live && setValue({ state: 'error', error: e }),
    );
    return () => {
      live = false;
    };
  }, [key, tick]);
  return [value, () => setTick((t) => t + 1)];
}

export function Show<T>({ value, children }: { value: Loaded<T>; children: (v: T) => ComponentChildren }): JSX.Element {
  if (value.state === 'loading') return <p class="muted" role="status">Loading…</p>;
  if (value.state === 'error') return <ErrorNote error={value.error} />;
  return <>{children(value.value)}</>;
}

export function ErrorNote({ error }: { error: unknown }): JSX.Element {
  return (
    <p class="error" role="alert">
      {describeError(error)}
    </p>
  );
}

/** A table that scrolls sideways on a narrow screen (focusable, so the keyboard can scroll it). */
export function TableBox({ label, children }: { label: string; children: ComponentChildren }): JSX.Element {
  return (
    <div class="table-box" tabIndex={0} role="region" aria-label={label}>
      <table>{children}</table>
    </div>
  );
}

export function Time({ at }: { at: string | null | undefined }): JSX.Element {
  if (!at) return <span class="muted">—</span>;
  const d = new Date(at);
  return (
    <time dateTime={at} title={at}>
      {d.toISOString().replace('T', ' ').slice(0, 19)}
    </time>
  );
}

export function Badge({ value }: { value: string | null | undefined }): JSX.Element {
  if (!value) return <span class="muted">—</span>;
  return <span class={`badge badge-${value}`}>{value}</span>;
}

export function Json({ value, label }: { value: unknown; label: string }): JSX.Element {
  return (
    <pre class="json" tabIndex={0} aria-label={label}>
      {JSON.stringify(value, null, 2)}
    </pre>
  );
}
