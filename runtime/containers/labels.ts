/**
 * The labels the gateway puts on what it creates (images, containers, its
 * network). Cleanup selects by these labels, never by name: a name prefix
 * could match someone else's container.
 */

/** Everything the gateway created carries `mcp-gateway.managed=true`. */
export const MANAGED_LABEL = 'mcp-gateway.managed';
/** The backend an image or container belongs to (its config name, unchanged). */
export const BACKEND_LABEL = 'mcp-gateway.backend';
/** The gateway process that runs a container (see ./owner.ts). */
export const OWNER_LABEL = 'mcp-gateway.owner';
/** The content hash an image was built from (see ./image-plan.ts). */
export const PLAN_LABEL = 'mcp-gateway.plan';
/** On base images the gateway made itself: where from (e.g. `host-node v20.20.2`). */
export const BASE_SOURCE_LABEL = 'mcp-gateway.base-source';

/** Selects the images and networks the gateway created. */
export const MANAGED_FILTER = { label: [`${MANAGED_LABEL}=true`] };

/**
 * Selects the containers the gateway created. A container inherits its
 * image's labels, so `managed=true` alone would also match a container
 * someone else made from a gateway image; only the gateway sets an owner.
 */
export const MANAGED_CONTAINER_FILTER = { label: [`${MANAGED_LABEL}=true`, OWNER_LABEL] };

export function managedLabels(extra: Record<string, string> = {}): Record<string, string> {
  return { [MANAGED_LABEL]: 'true', ...extra };
}
