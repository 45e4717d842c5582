/**
 * What follows the running config besides the controller: a reload may
 * change session limits, skills settings, container limits, the optimizer,
 * the tool pinning mode, the plugin chain (rebuilt), client authentication
 * and the authorization policies, and bring new literal credentials (headers,
 * env, local tokens) to redact; a completed OAuth flow reconnects its backend.
 */
import { registerConfigSecrets } from '../runtime/secrets/register-config-secrets.js';
import { skillSettingsOf } from '../runtime/skills/skill-settings.js';
import { optimizerSettingsOf } from '../runtime/optimizer/settings.js';
import type { Logger } from '../runtime/observability/logging/logger.js';
import type { Redactor } from '../runtime/observability/logging/redactor.js';
import type { Runtime } from './runtime.js';
import type { ListKind } from '../runtime/routing/route-table.js';

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
  let names = new Set(Object.keys(controller.config.backends));
  controller.onConfigApplied((config) => {
    for (const name of names) if (!Object.hasOwn(config.backends, name)) auth.forget(name);
    names = new Set(Object.keys(config.backends));
    runtime.containers.updateConfig(config.containers);
    runtime.skills.configure(skillSettingsOf(config, controller.loaded.filePath)).catch((err: unknown) => logger.error({ err }, 'skills settings not applied'));
    runtime.sessions.setLimits({ ttlSeconds: config.server.session_ttl, maxSessions: config.server.max_sessions });
    runtime.optimizer.configure(optimizerSettingsOf(config));
    runtime.pins.setSettings(config.security.tool_pinning);
    // New requests authenticate and are judged by the new settings; roles or policies that changed change what each client may see.
    const authChanged = runtime.incomingAuth.configure(config.incoming_auth);
    if (runtime.access.configure(config) || authChanged) runtime.fanout.listsChanged(ALL_LISTS);
    try {
      registerConfigSecrets(config, redactor);
    } catch (err) {
      logger.error({ err }, 'reloaded config holds credentials too short to redact; they may appear in logs');
    }
    // Returned, so the reload answers once the new chain is in place.
    return runtime.plugins
      .apply(config.plugins)
      .then(() => runtime.router.setPlugins(runtime.plugins.chain))
      .catch((err: unknown) => logger.error({ err }, 'plugin chain not rebuilt; the previous one stays'));
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
