/** A tiny HTTP client for the management API (Node's fetch), plus shape assertions. */
import { expect } from 'vitest';

export interface ApiResponse {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export function managementClient(baseUrl: string, token?: string) {
  const request = async (
    method: string,
    path: string,
    init: { body?: unknown; raw?: string; contentType?: string; token?: string | null } = {},
  ): Promise<ApiResponse> => {
    const headers: Record<string, string> = {};
    const bearer = init.token === undefined ? token : init.token;
    if (bearer) headers.authorization = `Bearer ${bearer}`;
    let body: string | undefined;
    if (init.raw !== undefined) body = init.raw;
    else if (init.body !== undefined) body = JSON.stringify(init.body);
    if (body !== undefined) headers['content-type'] = init.contentType ?? 'application/json';
    const res = await fetch(`${baseUrl}/manage/v1${path}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  };
  return {
    request,
    get: (path: string, init?: { token?: string | null }) => request('GET', path, init),
    post: (path: string, body?: unknown, init?: { token?: string | null }) => request('POST', path, { ...init, body }),
  };
}

/** The section 7 error body, exactly: `{error, message, details}`. */
export function expectError(res: ApiResponse, status: number, code: string): void {
  expect({ status: res.status, error: res.body?.error }, res.text).toEqual({ status, error: code });
  expect(Object.keys(res.body).sort()).toEqual(['details', 'error', 'message']);
  expect(typeof res.body.message).toBe('string');
  expect(res.body.message.length).toBeGreaterThan(0);
  expect(typeof res.body.details).toBe('object');
  expect(Array.isArray(res.body.details)).toBe(false);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
}

export function expectKeys(obj: unknown, keys: string[]): void {
  expect(obj).toBeTypeOf('object');
  expect(Object.keys(obj as object).sort()).toEqual([...keys].sort());
}
