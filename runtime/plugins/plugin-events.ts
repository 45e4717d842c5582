/**
 * Events the plugins publish for people (GET /events): the runtime may not
 * know the controller's event bus, so the composition root hands in a sink.
 */
import type { Severity, Stage } from '../../schemas/records.js';

export interface PluginEvent {
  stage: Extract<Stage, 'circuit_opened' | 'circuit_closed' | 'plugin_timed_out'>;
  backend: string;
  message: string;
  severity: Severity;
  details: Record<string, unknown>;
}

export type PluginEventSink = (event: PluginEvent) => void;
