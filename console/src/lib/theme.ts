/**
 * Light or dark: the system's choice unless the person picked one here
 * (kept in localStorage, the only thing the page stores; never a credential).
 */
import { createStore } from './store.js';

export type Theme = 'system' | 'light' | 'dark';
const KEY = 'gateway-console-theme';

const stored = (): Theme => {
  const t = localStorage.getItem(KEY);
  return t === 'light' || t === 'dark' ? t : 'system';
};

export const theme = createStore<Theme>(stored());

export function applyTheme(): void {
  const t = theme.get();
  if (t === 'system') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = t;
}

export function setTheme(t: Theme): void {
  if (t === 'system') localStorage.removeItem(KEY);
  else localStorage.setItem(KEY, t);
  theme.set(t);
  applyTheme();
}
