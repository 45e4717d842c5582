/**
 * The texts of a call the guards look at, rewritten copy-on-write: an object
 * is copied only when one of its texts changed, so a call nothing was found
 * in costs no allocation, and the caller's and the backend's objects are
 * never changed in place (a cached answer, a retried call).
 *
 * Arguments: every string, with the key it sits under. Results: a tool's
 * text content (embedded resources' text included) and the strings of its
 * structuredContent; a resource's text contents; a prompt's message texts.
 * Binary parts (images, audio, blobs) are left alone. A failed call's error:
 * its message and its data. A relayed log message: its data.
 */
import type { Notification } from '@modelcontextprotocol/client';
import type { HookMethod } from '../../schemas/plugins.js';
import type { JsonObject } from '../routing/caller.js';

/** Which part of a call a text belongs to: each part is measured on its own (output_length_guard). */
export type TextGroup = 'arguments' | 'content' | 'structured' | 'contents' | 'messages' | 'error' | 'notification';

export interface TextPlace {
  group: TextGroup;
  /** The object key the text sits under, when it has one (arguments, structuredContent). */
  key?: string;
  /** A resource's declared media type. */
  mimeType?: string;
}

export type TextMapper = (text: string, place: TextPlace) => string;

export function mapArgumentTexts(args: JsonObject, fn: TextMapper): JsonObject {
  return mapLeaves(args, fn, 'arguments', undefined) as JsonObject;
}

export function mapResultTexts(method: HookMethod, result: JsonObject, fn: TextMapper): JsonObject {
  switch (method) {
    case 'tools/call':
      return withFields(result, {
        content: mapArray(result.content, (item) => mapContentItem(item, fn, 'content')),
        structuredContent: result.structuredContent === undefined ? undefined : mapLeaves(result.structuredContent, fn, 'structured', undefined),
      });
    case 'resources/read':
      return withFields(result, {
        contents: mapArray(result.contents, (c) =>
          mapTextField(c, fn, { group: 'contents', mimeType: typeof c.mimeType === 'string' ? c.mimeType : undefined }),
        ),
      });
    case 'prompts/get':
      return withFields(result, {
        messages: mapArray(result.messages, (m) => withFields(m, { content: isObject(m.content) ? mapContentItem(m.content, fn, 'messages') : m.content })),
      });
  }
}

/**
 * A failed call's error with its texts mapped: the message, and what goes to
 * the client beside it (a JSON-RPC error's `data`, a typed error's
 * `details`). A changed one is a copy of the same class (the circuit
 * breaker and the JSON-RPC mapping still know it), without the original's
 * cause and with a stack that holds only the new message.
 */
export function mapErrorTexts(err: unknown, fn: TextMapper): unknown {
  if (!(err instanceof Error)) return err;
  const message = fn(err.message, { group: 'error' });
  const fields: Record<string, unknown> = {};
  for (const field of ERROR_DATA) {
    const value = (err as unknown as Record<string, unknown>)[field];
    const mapped = mapLeaves(value, fn, 'error', undefined);
    if (mapped !== value) fields[field] = mapped;
  }
  if (message === err.message && Object.keys(fields).length === 0) return err;
  return rewordedError(err, message, fields);
}

/** Where errors carry data for the client: BackendCallError's JSON-RPC data, GatewayError's details, McpError's data. */
const ERROR_DATA = ['rpcData', 'details', 'data'] as const;

function rewordedError(err: Error, message: string, fields: Record<string, unknown>): Error {
  // Own enumerable fields only (code, details, name, rpcCode…): not the message, the stack or the cause.
  const copy = Object.assign(Object.create(Object.getPrototypeOf(err) as object) as Error, err, fields);
  Object.defineProperty(copy, 'message', { value: message, writable: true, configurable: true });
  const frames = (err.stack ?? '').split('\n').filter((line) => line.startsWith('    at '));
  Object.defineProperty(copy, 'stack', { value: [`${err.name}: ${message}`, ...frames].join('\n'), writable: true, configurable: true });
  return copy;
}

/** A relayed notification with its texts mapped: a log message's `data` (a string or any JSON); other notifications carry none. */
export function mapNotificationTexts(notification: Notification, fn: TextMapper): Notification {
  const params = notification.params;
  if (notification.method !== 'notifications/message' || !isObject(params) || params.data === undefined) return notification;
  const data = mapLeaves(params.data, fn, 'notification', undefined);
  return data === params.data ? notification : { ...notification, params: { ...params, data } };
}

function mapContentItem(item: JsonObject, fn: TextMapper, group: TextGroup): JsonObject {
  if (item.type === 'text') return mapTextField(item, fn, { group });
  if (item.type === 'resource' && isObject(item.resource)) {
    const resource = item.resource;
    return withFields(item, {
      resource: mapTextField(resource, fn, { group, mimeType: typeof resource.mimeType === 'string' ? resource.mimeType : undefined }),
    });
  }
  return item;
}

function mapTextField(holder: JsonObject, fn: TextMapper, place: TextPlace): JsonObject {
  return typeof holder.text === 'string' ? withFields(holder, { text: fn(holder.text, place) }) : holder;
}

function mapLeaves(value: unknown, fn: TextMapper, group: TextGroup, key: string | undefined): unknown {
  if (typeof value === 'string') return fn(value, { group, key });
  if (Array.isArray(value)) {
    const items = value as unknown[];
    let copy: unknown[] | undefined;
    items.forEach((item, i) => {
      const mapped = mapLeaves(item, fn, group, key);
      if (mapped !== item) (copy ??= [...items])[i] = mapped;
    });
    return copy ?? items;
  }
  if (isObject(value)) {
    let copy: JsonObject | undefined;
    for (const [k, item] of Object.entries(value)) {
      const mapped = mapLeaves(item, fn, group, k);
      if (mapped !== item) (copy ??= { ...value })[k] = mapped;
    }
    return copy ?? value;
  }
  return value;
}

function mapArray(value: unknown, fn: (item: JsonObject) => JsonObject): unknown {
  if (!Array.isArray(value)) return value;
  const items = value as unknown[];
  let copy: unknown[] | undefined;
  items.forEach((item, i) => {
    if (!isObject(item)) return;
    const mapped = fn(item);
    if (mapped !== item) (copy ??= [...items])[i] = mapped;
  });
  return copy ?? items;
}

/** The object with these fields, the same object when none changed. */
function withFields(holder: JsonObject, fields: JsonObject): JsonObject {
  let copy: JsonObject | undefined;
  for (const [k, v] of Object.entries(fields)) if (v !== holder[k]) (copy ??= { ...holder })[k] = v;
  return copy ?? holder;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
