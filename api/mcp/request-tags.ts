/**
 * The ids of requests a replica sends to a client (sampling, elicitation,
 * roots) carry the replica's tag, `<tag>:<id>`: the client's answer may land
 * on any replica, and the tag says which one waits for it. Each replica's
 * SDK Server numbers its requests from 0, so the tag also keeps two
 * replicas' requests to one client apart.
 */
import type { RequestId } from '@modelcontextprotocol/server';

const TAGGED = /^([A-Za-z0-9]+):(-?\d{1,15})$/;

export function tagRequestId(tag: string, id: RequestId): string {
  return `${tag}:${String(id)}`;
}

/** The tag and the replica's own (numeric) id of a tagged request id; undefined for any other id. */
export function taggedRequestId(id: unknown): { tag: string; id: number } | undefined {
  if (typeof id !== 'string') return undefined;
  const m = TAGGED.exec(id);
  return m ? { tag: m[1]!, id: Number(m[2]) } : undefined;
}
