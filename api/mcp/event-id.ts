/**
 * SSE event ids: `<stream>/<seq>`. The stream part names the stream within
 * the session (`g` for the standalone GET stream, otherwise a POST's
 * response stream, prefixed with the replica's tag when several replicas
 * share the session), so a `Last-Event-ID` says which stream to resume and
 * from where.
 */
export const STANDALONE_STREAM = 'g';

export function eventId(stream: string, seq: number | string): string {
  return `${stream}/${seq}`;
}

/** The stream and position a `Last-Event-ID` names; undefined when it is not one of ours. */
export function parseEventId(value: string | string[] | undefined): { stream: string; seq: string } | undefined {
  if (typeof value !== 'string') return undefined;
  const cut = value.lastIndexOf('/');
  if (cut <= 0 || cut === value.length - 1) return undefined;
  return { stream: value.slice(0, cut), seq: value.slice(cut + 1) };
}

/** A local stream's sequence number, or undefined when it is not a non-negative integer. */
export function parseSeq(seq: string): number | undefined {
  return /^\d{1,15}$/.test(seq) ? Number(seq) : undefined;
}
