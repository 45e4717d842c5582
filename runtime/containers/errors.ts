/**
 * Why a stdio backend could not get its container. `reason` is the
 * CamelCase word a backend condition shows (e.g. `ImageReady: False,
 * reason BaseImageUnavailable`); the message says what to do about it.
 * They are `backend_unavailable` errors: the backend exists but cannot run.
 */
import { GatewayError } from '../../schemas/errors.js';
import type { ContainerFailure } from '../../schemas/conditions.js';

export class ContainerError extends GatewayError {
  readonly reason: ContainerFailure;
  readonly backend: string;

  constructor(backend: string, reason: ContainerFailure, message: string, cause?: unknown) {
    super('backend_unavailable', message, { backend, reason }, { cause });
    this.reason = reason;
    this.backend = backend;
  }
}

/** The message of an error from dockerode, which puts the daemon's answer in `json.message` or `json.cause`. */
export function daemonMessage(err: unknown): string {
  const e = err as { json?: { message?: string; cause?: string }; reason?: string; message?: string };
  return e.json?.message ?? e.json?.cause ?? e.message ?? String(err);
}

/** HTTP status of a daemon error (404 no such object, 409 conflict, 304 not modified). */
export function daemonStatus(err: unknown): number | undefined {
  return (err as { statusCode?: number }).statusCode;
}
