/**
 * The names a policy sees for one capability: its own (`tool:<exposed name>`,
 * `resource:<uri>`, `prompt:<name>`), its backend's (`server:<backend>`) and
 * that backend's group (`group:<group>`). A policy matches a capability when
 * one of its patterns matches one of these names.
 */
import type { CapabilityKind } from '../../schemas/access-config.js';

export function capabilityNames(kind: CapabilityKind, name: string, backend: string | undefined, group: string | undefined): string[] {
  const names = [`${kind}:${name}`];
  if (backend !== undefined) names.push(`server:${backend}`);
  if (group !== undefined) names.push(`group:${group}`);
  return names;
}
