/** POST /reload, /reconnect/{name}, /reauth/{name} and /shutdown. */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import {
  NameParamsSchema,
  ReauthQuerySchema,
  ReauthSchema,
  ReconnectSchema,
  ReloadBodySchema,
  ReloadDryRunSchema,
  ReloadSchema,
  ShutdownBodySchema,
  ShutdownSchema,
} from '../../../schemas/api.js';
import { GatewayError } from '../../../schemas/errors.js';
import type { ManagementContext } from '../context.js';
import { BAD_REQUEST, doc, errors } from '../route-doc.js';

export function controlRoutes(app: FastifyInstance, ctx: ManagementContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tag = 'control';
  const { controller } = ctx;

  r.post(
    '/reload',
    {
      schema: {
        ...doc(tag, 'Re-read the config file and apply the difference (needs feature_flags.hot_reload); with `dry_run`, only show it'),
        body: ReloadBodySchema,
        response: {
          // The dry run first: the serializer takes the first schema that fits, and a dry run's answer fits both.
          200: Type.Union([ReloadDryRunSchema, ReloadSchema], { description: 'The reload, or with `dry_run` what it would change' }),
          ...errors({ 400: BAD_REQUEST, 409: 'Hot reload is disabled (`hot_reload_disabled`).' }),
        },
      },
    },
    async (req) => {
      if (!req.body.dry_run) return controller.reload('api');
      const { valid, errors: problems, ...changes } = controller.previewReload();
      return { reloaded: false as const, dry_run: true as const, valid, ...changes, errors: problems };
    },
  );

  r.post(
    '/reconnect/:name',
    {
      schema: {
        ...doc(tag, 'Drop and re-establish one backend connection', { role: 'operator' }),
        params: NameParamsSchema,
        response: { 200: ReconnectSchema, ...errors({ 400: BAD_REQUEST, 404: 'Unknown backend (`backend_not_found`).' }) },
      },
    },
    async (req) => controller.reconnect(req.params.name),
  );

  r.post(
    '/reauth/:name',
    {
      schema: {
        ...doc(tag, "Start the OAuth re-authentication of a backend, or with `user` that user's sign-in to a backend that acts for each user", {
          role: 'operator',
        }),
        params: NameParamsSchema,
        querystring: ReauthQuerySchema,
        response: {
          200: ReauthSchema,
          ...errors({ 400: BAD_REQUEST, 404: 'Unknown backend (`backend_not_found`).', 503: 'Service not running (`service_unavailable`).' }),
        },
      },
    },
    async (req) => {
      const { name } = req.params;
      controller.requireBackend(name);
      if (controller.state !== 'running') throw new GatewayError('service_unavailable', `The gateway is ${controller.state}`, { state: controller.state });
      const spec = controller.config.backends[name]!;
      const { user } = req.query;
      // Answers at once with the URL; the backend reconnects by itself once the flow completes (event `reauthenticated`).
      // A user's sign-in reconnects nothing: that user's next call carries the new token.
      try {
        const { authorization_url } =
          user === undefined ? await ctx.auth.startReauth(name, spec) : { authorization_url: await ctx.signIns.startSignIn(name, spec, user) };
        return { name, reauth_initiated: true, error: null, authorization_url };
      } catch (err) {
        return { name, reauth_initiated: false, error: (err as Error).message, authorization_url: null };
      }
    },
  );

  r.post(
    '/shutdown',
    {
      schema: {
        ...doc(tag, 'Graceful shutdown; the process then exits'),
        body: ShutdownBodySchema,
        response: { 200: ShutdownSchema, ...errors({ 400: BAD_REQUEST }) },
      },
    },
    async (req, reply) => {
      const timeout = req.body.timeout_seconds;
      let started = false;
      const start = () => {
        if (started) return;
        started = true;
        ctx.requestShutdown(timeout);
      };
      // Answer first: the shutdown closes the listener and this connection.
      reply.raw.once('finish', start);
      reply.raw.once('close', start);
      return { shutting_down: true };
    },
  );
}
