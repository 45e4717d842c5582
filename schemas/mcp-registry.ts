/**
 * The parts of the official MCP registry API v0.1 the gateway reads
 * (`GET /v0.1/servers`, `GET /v0.1/servers/{name}/versions/{version}`).
 * Open objects: registries add fields, and only these are relied on.
 */
import { Type, type Static } from '@sinclair/typebox';

const Open = { additionalProperties: true } as const;

const Input = {
  description: Type.Optional(Type.String()),
  isRequired: Type.Optional(Type.Boolean()),
  isSecret: Type.Optional(Type.Boolean()),
  value: Type.Optional(Type.String()),
  default: Type.Optional(Type.String()),
};

export const McpRegistryArgumentSchema = Type.Object(
  {
    type: Type.String({ description: '`positional` or `named`.' }),
    name: Type.Optional(Type.String()),
    valueHint: Type.Optional(Type.String()),
    ...Input,
  },
  Open,
);
export const McpRegistryKeyValueSchema = Type.Object({ name: Type.String(), ...Input }, Open);

export const McpRegistryTransportSchema = Type.Object(
  {
    type: Type.String({ description: '`stdio`, `streamable-http` or `sse`.' }),
    url: Type.Optional(Type.String()),
    headers: Type.Optional(Type.Array(McpRegistryKeyValueSchema)),
  },
  Open,
);

export const McpRegistryPackageSchema = Type.Object(
  {
    registryType: Type.String({ description: '`npm`, `pypi`, `oci`, `nuget`, `mcpb`, ...' }),
    registryBaseUrl: Type.Optional(Type.String()),
    identifier: Type.String(),
    version: Type.Optional(Type.String()),
    runtimeHint: Type.Optional(Type.String()),
    transport: Type.Optional(McpRegistryTransportSchema),
    runtimeArguments: Type.Optional(Type.Array(McpRegistryArgumentSchema)),
    packageArguments: Type.Optional(Type.Array(McpRegistryArgumentSchema)),
    environmentVariables: Type.Optional(Type.Array(McpRegistryKeyValueSchema)),
  },
  Open,
);

export const McpRegistryServerSchema = Type.Object(
  {
    name: Type.String(),
    description: Type.Optional(Type.String()),
    version: Type.Optional(Type.String()),
    packages: Type.Optional(Type.Array(McpRegistryPackageSchema)),
    remotes: Type.Optional(Type.Array(McpRegistryTransportSchema)),
  },
  Open,
);

/** One element of `servers`: the server.json plus registry metadata. */
export const McpRegistryServerResponseSchema = Type.Object(
  {
    server: McpRegistryServerSchema,
    _meta: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  Open,
);

export const McpRegistryServerListSchema = Type.Object(
  {
    servers: Type.Array(McpRegistryServerResponseSchema),
    metadata: Type.Optional(
      Type.Object(
        {
          nextCursor: Type.Optional(Type.Union([Type.String(), Type.Null()])),
          count: Type.Optional(Type.Integer()),
        },
        Open,
      ),
    ),
  },
  Open,
);

export type McpRegistryServer = Static<typeof McpRegistryServerSchema>;
export type McpRegistryPackage = Static<typeof McpRegistryPackageSchema>;
export type McpRegistryTransport = Static<typeof McpRegistryTransportSchema>;
export type McpRegistryArgument = Static<typeof McpRegistryArgumentSchema>;
export type McpRegistryServerResponse = Static<typeof McpRegistryServerResponseSchema>;
export type McpRegistryServerList = Static<typeof McpRegistryServerListSchema>;
