/**
 * Pages are addressed by the URL fragment (`/console/#/backends/memory`), so
 * the gateway serves one file and a bookmark or a reload opens the same page.
 */
import { createStore, useStore } from './store.js';

export interface Route {
  /** Path segments after `#/`, decoded: `['backends', 'memory']`. */
  parts: string[];
  params: URLSearchParams;
}

function parse(hash: string): Route {
  const [path = '', search = ''] = hash.replace(/^#\/?/, '').split('?');
  return { parts: path.split('/').filter(Boolean).map(decodeURIComponent), params: new URLSearchParams(search) };
}

const route = createStore<Route>(parse(location.hash));
addEventListener('hashchange', () => route.set(parse(location.hash)));

export const useRoute = (): Route => useStore(route);

export const href = (...parts: string[]): string => `#/${parts.map(encodeURIComponent).join('/')}`;

export function navigate(to: string): void {
  location.hash = to.replace(/^#/, '');
}
