/**
 * What every backend transport is, whatever carries it: an SDK client
 * Transport plus the facts the rest of the gateway asks of a backend's
 * connection (the process or container it runs in, ending its session).
 * Each transport class implements the parts that apply to it; callers never
 * look behind this interface.
 */
import type { Transport } from '@modelcontextprotocol/client';
import type { ContainerRef } from '../../schemas/records.js';

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** What a backend's own output and end are reported to (stdio processes and containers; HTTP has neither). */
export interface TransportHooks {
  /** Each line the backend writes to stderr. */
  onstderr?: (line: string) => void;
  /** Once, when the process or container has ended, before onclose. */
  onexit?: (exit: ProcessExit) => void;
}

export interface BackendTransport extends Transport, TransportHooks {
  /** The process id of a bare stdio backend, once started. */
  readonly pid?: number;
  /** The container a stdio backend runs in, once started. */
  readonly container?: ContainerRef;
  /** Ends the session at the server (streamable HTTP: DELETE); absent where there is no session to end. */
  terminateSession?(): Promise<void>;
}
