/**
 * Every request the page makes: to this gateway's management API only
 * (the Content-Security-Policy allows nothing else), with the session
 * cookie the browser holds and, for a change, the session's CSRF token.
 * A 401 means the sign-in is over: the page goes back to the sign-in form.
 */
import { createStore } from './store.js';
import type { ErrorBody, Session } from './types.js';

export const API = '/manage/v1';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** Who is signed in (GET /manage/v1/session); undefined until known. */
export const session = createStore<Session | undefined>(undefined);

export async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const csrf = session.get()?.csrf_token;
  if (method !== 'GET' && csrf) headers['x-csrf-token'] = csrf;
  let res: Response;
  try {
    res = await fetch(`${API}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'same-origin' });
  } catch {
    throw new ApiError(0, 'unreachable', 'The gateway does not answer. It may be restarting; the page retries by itself.');
  }
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!res.ok) {
    const err = (parsed ?? {}) as Partial<ErrorBody>;
    if (res.status === 401 && session.get()?.signed_in && !path.startsWith('/session')) void refreshSession();
    throw new ApiError(res.status, err.error ?? 'http_error', err.message ?? `${res.status} ${res.statusText}`, err.details ?? {});
  }
  return parsed as T;
}

export const get = <T>(path: string) => request<T>('GET', path);
export const post = <T>(path: string, body: unknown = {}) => request<T>('POST', path, body);

export async function refreshSession(): Promise<Session> {
  const s = await get<Session>('/session');
  session.set(s);
  return s;
}

export async function signIn(token: string): Promise<Session> {
  const s = await post<Session>('/session', { token });
  session.set(s);
  return s;
}

export async function signOut(): Promise<void> {
  const s = await request<Session>('DELETE', '/session');
  session.set(s);
}

export const query = (params: Record<string, string | number | undefined | null>): string => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
};
