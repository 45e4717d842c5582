/**
 * What a sealed `requestState` is bound to, so that it is worth nothing
 * anywhere else: the identity that made the call, the call itself (method,
 * name or URI, arguments) and the round it answers. A retry by another
 * identity, with other arguments, or with the state of an earlier round is
 * refused.
 */
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { CallerContext, JsonObject } from '../routing/caller.js';

/** The params a client repeats on each round: without the round's own material and `_meta` (progress tokens differ). */
export function callParams(params: JsonObject): JsonObject {
  const { inputResponses: _r, requestState: _s, _meta: _m, ...rest } = params;
  return rest;
}

/** SHA-256 (base64url) of a request's method and canonical params. */
export function requestDigest(method: string, params: JsonObject): string {
  return createHash('sha256')
    .update(method)
    .update('\0')
    .update(canonicalize(params) ?? '')
    .digest('base64url');
}

/** Who a state belongs to: the authenticated user, or nobody in particular for anonymous callers. */
export function ownerOf(caller: CallerContext): string {
  return caller.userId === undefined ? '' : `u:${caller.userId}`;
}

/** The facts a state is bound to; each is checked again when the state comes back. */
export interface CallBinding {
  /** ownerOf(caller). */
  o: string;
  /** requestDigest(method, callParams(params)). */
  c: string;
  /** The round this state answers (1 for the first `input_required`). */
  r: number;
}

export function bindingOf(caller: CallerContext, method: string, params: JsonObject, round: number): CallBinding {
  return { o: ownerOf(caller), c: requestDigest(method, callParams(params)), r: round };
}

/** Why a state does not fit the request it came with, or undefined when it does (the round is checked by whoever holds the call). */
export function bindingMismatch(binding: CallBinding, caller: CallerContext, method: string, params: JsonObject): 'owner' | 'call' | undefined {
  if (binding.o !== ownerOf(caller)) return 'owner';
  if (binding.c !== requestDigest(method, callParams(params))) return 'call';
  return undefined;
}
