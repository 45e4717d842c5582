/**
 * Tells operators what the definition pins decided (runtime/pinning): an
 * event (logged like every event, so one warning line) each time a
 * definition begins to wait or what waits changes, and when an operator
 * approves one. A steady state is told once (the pins remember what they
 * told, across restarts too).
 */
import type { Logger } from '../../runtime/observability/logging/logger.js';
import type { ApprovedDefinition, DefinitionPins, HeldDefinition } from '../../runtime/pinning/definition-pins.js';
import { printableName } from '../../schemas/tool-name.js';
import type { EventBus, EventInput } from '../event-bus.js';

/** How many findings a message names before "and N more" (the details have them all). */
const FINDINGS_IN_MESSAGE = 2;

export function reportDefinitionPins(pins: DefinitionPins, events: EventBus, log: Logger): void {
  pins.on('held', (held) => events.emit(heldEvent(held)));
  pins.on('approved', (approved) => events.emit(approvedEvent(approved)));
  pins.on('saveFailed', (err) =>
    log.error({ err, pins: pins.location }, `could not save the definition pins to ${pins.location}; trying again with the next change`),
  );
  pins.on('readFailed', (err) =>
    log.error({ err, pins: pins.location }, `could not read the definition pins from ${pins.location}; the gateway connects no backend until it can`),
  );
}

function heldEvent(h: HeldDefinition): EventInput {
  const what = `${h.kind} ${printableName(h.exposed)}`;
  const commands = `gateway-client ${h.kind}s diff ${h.exposed}, then gateway-client ${h.kind}s approve ${h.exposed}`;
  const hashes = h.pinnedHash ? ` (sha256 ${short(h.pinnedHash)} → ${short(h.hash)})` : '';
  const why =
    h.reason === 'changed'
      ? `changed its definition since it was pinned${hashes}`
      : h.reason === 'new'
        ? 'is new since the backend was first pinned'
        : `holds suspicious text: ${listed(h.findings.map((f) => `${f.detail} in ${f.field}`))}${hashes}`;
  const details = {
    kind: h.kind,
    [h.kind]: h.name,
    name: h.exposed,
    reason: h.reason,
    quarantined: h.quarantined,
    old_hash: h.pinnedHash ?? null,
    new_hash: h.hash,
    findings: h.findings,
  };
  if (h.quarantined)
    return {
      stage: 'tool_quarantined',
      backend: h.backend,
      severity: 'warning',
      message: `${h.backend}: ${what} ${why}; quarantined until approved (${commands})`,
      details,
    };
  return {
    stage: h.reason === 'suspicious' ? 'tool_flagged' : 'tool_definition_changed',
    backend: h.backend,
    severity: 'warning',
    message: `${h.backend}: ${what} ${why}; still served (security.tool_pinning.mode: ${h.mode}); review it with ${commands}`,
    details,
  };
}

function approvedEvent(a: ApprovedDefinition): EventInput {
  return {
    stage: 'tool_approved',
    backend: a.backend,
    message: `${a.backend}: ${a.kind} ${printableName(a.exposed)} approved (sha256 ${short(a.hash)}); served to clients`,
    details: { kind: a.kind, [a.kind]: a.name, name: a.exposed, reason: a.reason, old_hash: a.previousHash ?? null, new_hash: a.hash },
  };
}

const short = (hash: string) => `${hash.slice(0, 12)}…`;

function listed(items: string[]): string {
  const more = items.length - FINDINGS_IN_MESSAGE;
  return items.slice(0, FINDINGS_IN_MESSAGE).join('; ') + (more > 0 ? `; and ${more} more` : '');
}
