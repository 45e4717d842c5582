/**
 * How an operation's failure is described, shared by the audit record
 * (`outcome.error`, `outcome.error_type`) and the telemetry span and metrics,
 * so both name the same failure the same way.
 */

/** The class name (e.g. `McpError`, `BackendTimeoutError`), so failures can be grouped by kind. */
export function errorType(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const name = (error as { constructor?: { name?: unknown } }).constructor?.name;
    if (typeof name === 'string' && name !== '' && name !== 'Object') return name;
    const own = (error as { name?: unknown }).name;
    if (typeof own === 'string' && own !== '') return own;
  }
  return error instanceof Error ? error.name : 'UnknownError';
}

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  const message = (error as { message?: unknown } | null)?.message;
  if (typeof message === 'string') return message;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}

/** A tool result that reports a tool-level failure (`isError: true`). */
export function isToolError(result: unknown): boolean {
  return typeof result === 'object' && result !== null && (result as { isError?: unknown }).isError === true;
}

/** The text of a tool-level failure, else undefined. */
export function toolErrorText(result: unknown): string | undefined {
  if (!isToolError(result)) return undefined;
  const content = (result as { content?: Array<{ type?: string; text?: string }> }).content ?? [];
  const text = content
    .filter((c) => c.type === 'text' && typeof c.text === 'string')
    .map((c) => c.text)
    .join('\n');
  return text || 'tool reported an error';
}
