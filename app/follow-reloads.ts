/**
 * What follows the running config besides the controller, registered once as
 * Reconfigurables (./reconfigurable.ts): a reload may change session limits,
 * skills settings, container limits, the optimizer, the tool pinning mode,
 * the plugin chain (rebuilt), client authentication and the authorization
 * policies, and bring new literal credentials (headers, env, local tokens)
 * to redact. A completed OAuth flow reconnects its backend.
 */
import { registerConfigSecrets } from '../runtime/secrets/register-config-secrets.js';
import { skillSettingsOf } from '../runtime/skills/skill-settings.js';
import { optimizerSettingsOf } from '../runtime/optimizer/settings.js';
import type { Logger } from '../runtime/observability/logging/logger.js';
import type { Redactor } from '../runtime/observability/logging/redactor.js';
import type { Runtime } from './runtime.js';
import type { ListKind } from '../runtime/routing/route-table.js';
import { Reconfigurables } from './reconfigurable.js';

const ALL_LISTS: ReadonlySet<ListKind> = new Set(['tools', 'prompts', 'resources']);

export function followReloads(runtime: Runtime, logger: Logger, redactor: Redactor): void {
  const { controller, auth } = runtime;
  auth.on('reauthenticated', (name) => {
    controller.events.emit({ stage: 'reauthenticated', backend: name, message: `${name} is authorized again; reconnecting` });
    void controller.reconnect(name).catch((err: unknown) => logger.warn({ err, backend: name }, 'reconnect after re-authentication failed'));
  });
  auth.on('reauth_failed', (name, reason) => {
    controller.events.emit({
      stage: 'reauth_failed',
      backend: name,
      severity: 'error',
      message: `${name}: re-authentication failed: ${reason}`,
      details: { reason },
    });
  });
  followSignIns(runtime);
  const features = reconfigurables(runtime, logger, redactor);
  features.prime(controller.config);
  // Returned, so the reload answers once every setting is in effect (the plugin chain rebuilt).
  controller.onConfigApplied(async (config) => {
    const { visible } = await features.apply(config);
    // New requests authenticate and are judged by the new settings: what each client may see may differ.
    if (visible) runtime.fanout.listsChanged(ALL_LISTS);
  });
}

/** Every feature that follows the running config, in the order a reload applies them (one place: ./reconfigurable.ts). */
function reconfigurables(runtime: Runtime, logger: Logger, redactor: Redactor): Reconfigurables {
  const { controller } = runtime;
  return new Reconfigurables(logger)
    .register({
      name: 'oauth',
      select: (c) => Object.keys(c.backends),
      // A removed backend's tokens and flows are forgotten.
      apply: (names, before) => {
        for (const name of before ?? []) if (!names.includes(name)) runtime.auth.forget(name);
      },
    })
    .register({ name: 'containers', select: (c) => c.containers, apply: (s) => runtime.containers.updateConfig(s) })
    .register({
      name: 'skills',
      select: (c) => skillSettingsOf(c, controller.loaded.filePath),
      // Rescanning may take a while: the reload does not wait for it.
      apply: (s) => void runtime.skills.configure(s).catch((err: unknown) => logger.error({ err }, 'skills settings not applied')),
    })
    .register({
      name: 'sessions',
      select: (c) => ({ ttlSeconds: c.server.session_ttl, maxSessions: c.server.max_sessions }),
      apply: (s) => runtime.sessions.setLimits(s),
    })
    .register({ name: 'optimizer', select: optimizerSettingsOf, apply: (s) => runtime.optimizer.configure(s) })
    .register({ name: 'tool_pinning', select: (c) => c.security.tool_pinning, apply: (s) => runtime.pins.setSettings(s) })
    .register({ name: 'incoming_auth', select: (c) => c.incoming_auth, apply: (s) => runtime.incomingAuth.configure(s) })
    .register({
      name: 'authorization',
      // The policies, and each backend's group (what `group:` names in a rule match).
      select: (c) => ({ authorization: c.authorization, backends: c.backends }),
      apply: (s) => runtime.access.configure(s),
    })
    .register({
      name: 'redaction',
      select: (c) => c,
      apply: (c) => {
        try {
          registerConfigSecrets(c, redactor);
        } catch (err) {
          logger.error({ err }, 'reloaded config holds credentials too short to redact; they may appear in logs');
        }
      },
    })
    .register({
      name: 'plugins',
      select: (c) => c.plugins,
      // Rebuilt on every reload (a plugin's own code may have changed on disk).
      apply: (s) =>
        runtime.plugins
          .apply(s)
          .then(() => runtime.router.setPlugins(runtime.plugins.chain))
          .catch((err: unknown) => logger.error({ err }, 'plugin chain not rebuilt; the previous one stays')),
    });
}

/**
 * A user's sign-in to a backend that acts for each user shows in the events
 * with the user in its details; the backend's phase does not change (it
 * serves the other users all along), so nothing reconnects.
 */
function followSignIns({ controller, signIns }: Runtime): void {
  signIns.on('sign_in_required', (name, user, url) => {
    controller.events.emit({
      stage: 'authorization_required',
      backend: name,
      severity: 'warning',
      message: `${name}: user ${user} must sign in (${url})`,
      details: { user, authorization_url: url },
    });
  });
  signIns.on('token_refused', (name, user) => {
    controller.events.emit({
      stage: 'token_refused',
      backend: name,
      severity: 'warning',
      message: `${name}: the backend refused the token of user ${user}; it was dropped and the user is asked to sign in again`,
      details: { user },
    });
  });
  signIns.on('signed_in', (name, user) => {
    controller.events.emit({ stage: 'reauthenticated', backend: name, message: `${name}: user ${user} signed in`, details: { user } });
  });
  signIns.on('sign_in_failed', (name, user, reason) => {
    controller.events.emit({
      stage: 'reauth_failed',
      backend: name,
      severity: 'error',
      message: `${name}: sign-in of user ${user} failed: ${reason}`,
      details: { user, reason },
    });
  });
}
