/**
 * The texts of a call the guards look at, rewritten copy-on-write: an object
 * is copied only when one of its texts changed, so a call nothing was found
 * in costs no allocation, and the caller's and the backend's objects are
 * never changed in place (a cached answer, a retried call).
 *
 * Arguments: every string, with the key it sits under. Results: a tool's
 * text content (embedded resources' text included) and the strings of its
 * structuredContent; a resource's text contents; a prompt's message texts.
 * Binary parts (images, audio, blobs) are left alone.
 */
import type { HookMethod } from '../../schemas/plugins.js';
import type { JsonObject } from '../routing/caller.js';

/** Which part of a call a text belongs to: each part is measured on its own (output_length_guard). */
export type TextGroup = 'arguments' | 'content' | 'structured' | 'contents' | 'messages';

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
