/**
 * What a call may ask its client for in the middle of it (elicitation,
 * sampling, roots), in the shapes both revisions share: a 2025-11-25 server
 * sends each as a request of its own; a 2026-07-28 server answers the call
 * `input_required` with them keyed in `inputRequests`, and the client repeats
 * the call with `inputResponses` under the same keys.
 */
import type { JsonObject, PeerMessage } from '../routing/caller.js';

/** The methods that may answer `input_required` (2026-07-28), and so may ask for input in either revision. */
export const MAY_ASK_FOR_INPUT: ReadonlySet<string> = new Set(['tools/call', 'prompts/get', 'resources/read']);

/** The requests a server may make of a client while it serves one of its calls. */
const INPUT_METHODS: ReadonlySet<string> = new Set(['elicitation/create', 'sampling/createMessage', 'roots/list']);

export type InputRequests = Record<string, PeerMessage>;

export interface InputRequiredResult extends JsonObject {
  resultType: 'input_required';
  inputRequests?: InputRequests;
  requestState?: string;
}

export function isInputRequired(result: JsonObject): result is InputRequiredResult {
  return result.resultType === 'input_required';
}

export function isInputMethod(method: string): boolean {
  return INPUT_METHODS.has(method);
}

/**
 * The client capability a request needs, as a path (`elicitation.url`):
 * URL-mode elicitation needs the client to have declared that mode; form
 * mode is what a bare `elicitation` declares.
 */
export function requiredCapability(request: PeerMessage): string {
  switch (request.method) {
    case 'elicitation/create':
      return request.params?.mode === 'url' ? 'elicitation.url' : 'elicitation';
    case 'sampling/createMessage':
      return 'sampling';
    default:
      return 'roots';
  }
}

/** Whether the client's declared capabilities (initialize's, or the request's `_meta` envelope's) cover `capability`. */
export function declares(capabilities: Readonly<Record<string, unknown>> | undefined, capability: string): boolean {
  const [top, sub] = capability.split('.');
  const declared = capabilities?.[top];
  if (declared === undefined || declared === null || typeof declared !== 'object') return false;
  return sub === undefined || (declared as Record<string, unknown>)[sub] !== undefined;
}

/** Whether the client declared any capability a backend's request in the middle of a call needs (else it is never asked). */
export function mayHaveLaterRounds(capabilities: Readonly<Record<string, unknown>> | undefined): boolean {
  // Asked of every 2026-07-28 tool call: top-level keys only, nothing split or made.
  return capabilities !== undefined && (isDeclared(capabilities.elicitation) || isDeclared(capabilities.sampling) || isDeclared(capabilities.roots));
}

const isDeclared = (declared: unknown): boolean => declared !== null && typeof declared === 'object';

/** The first capability the client lacks for these requests, or undefined when it can answer them all. */
export function missingCapability(requests: Iterable<PeerMessage>, capabilities: Readonly<Record<string, unknown>> | undefined): string | undefined {
  for (const request of requests) {
    const needed = requiredCapability(request);
    if (!declares(capabilities, needed)) return needed;
  }
  return undefined;
}

/** `{ elicitation: { url: {} } }` for `elicitation.url`: the shape of -32021's `data.requiredCapabilities`. */
export function capabilityObject(capability: string): JsonObject {
  const [top, sub] = capability.split('.');
  return { [top]: sub === undefined ? {} : { [sub]: {} } };
}

/** JSON bytes of a value, for the size caps. */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value ?? null));
}
