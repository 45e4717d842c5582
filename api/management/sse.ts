/**
 * Live event streams: one `data: <json>` frame per event record and a
 * `: heartbeat` comment every interval. A subscription ends when its client
 * goes away, when the client reads too slowly to keep up, or when the server
 * closes (the stream then ends cleanly rather than being cut).
 */
import type { FastifyReply } from 'fastify';
import type { ServerResponse } from 'node:http';
import type { EventBus } from '../../controller/event-bus.js';
import type { Redactor } from '../../runtime/observability/logging/redactor.js';

/** Unsent bytes tolerated for a slow reader before the stream is closed. */
const MAX_BACKLOG_BYTES = 1024 * 1024;

export class EventStreams {
  private readonly open = new Set<ServerResponse>();

  constructor(
    private readonly events: EventBus,
    private readonly redactor: Redactor,
  ) {}

  serve(reply: FastifyReply, heartbeatMs: number): void {
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    res.flushHeaders();

    const send = (chunk: string) => {
      if (res.destroyed || res.writableEnded) return;
      if (res.writableLength > MAX_BACKLOG_BYTES) {
        res.destroy();
        return;
      }
      res.write(chunk);
    };
    const unsubscribe = this.events.subscribe((e) => send(`data: ${this.redactor.redact(JSON.stringify(e))}\n\n`));
    const heartbeat = setInterval(() => send(': heartbeat\n\n'), heartbeatMs);
    heartbeat.unref();
    this.open.add(res);
    res.once('close', () => {
      clearInterval(heartbeat);
      unsubscribe();
      this.open.delete(res);
    });
  }

  /** Ends every open stream (server shutdown). */
  closeAll(): void {
    for (const res of this.open) res.end();
  }
}
