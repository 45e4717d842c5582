/**
 * Pins of tool and prompt definitions (docs/tool-pinning.md): why a
 * definition is held back, what the suspicious-text check reports, and the
 * shape pins are kept in (`<state>/pins.json`, or any other pin store).
 */
import { Type, type Static } from '@sinclair/typebox';

/** What is pinned: a backend's tools and its prompts. */
export const DEFINITION_KINDS = ['tool', 'prompt'] as const;
export type DefinitionKind = (typeof DEFINITION_KINDS)[number];

/**
 * Why a definition waits for an operator: it differs from its pin, it
 * appeared after the backend's first catalog (`new_tools: quarantine`), or
 * it holds suspicious text.
 */
export const HOLD_REASONS = ['changed', 'new', 'suspicious'] as const;
export type HoldReason = (typeof HOLD_REASONS)[number];

/** What the suspicious-text check looks for (runtime/pinning/suspicious-text.ts). */
export const FINDING_KINDS = ['tag_characters', 'zero_width', 'bidi_control', 'instruction_marker'] as const;

const literals = <T extends readonly string[]>(values: T) => Type.Union(values.map((v) => Type.Literal(v as T[number])));

export const FindingSchema = Type.Object({
  kind: literals(FINDING_KINDS),
  field: Type.String({ description: 'Where it was found: `name`, `description`, `inputSchema.properties.path.description`, …' }),
  detail: Type.String({ description: 'What was found: the characters (hidden text decoded) or the marker.' }),
});
export type Finding = Static<typeof FindingSchema>;

/** A definition as it is hashed: the fields a client's model reads. */
const Definition = Type.Record(Type.String(), Type.Unknown());

/** The definition an operator (or the first sight of a backend) accepted. */
export const PinSchema = Type.Object({
  hash: Type.String({ description: 'SHA-256 (hex) of the canonical JSON of the definition.' }),
  definition: Definition,
  pinned_at: Type.String({ description: 'ISO 8601' }),
  approved: Type.Boolean({ description: 'Pinned by an operator (POST …/approve), not at first sight: suspicious text in it was accepted.' }),
});
export type Pin = Static<typeof PinSchema>;

/** The definition a backend serves now, when it differs from the pin or is suspicious. */
export const PendingSchema = Type.Object({
  reason: literals(HOLD_REASONS),
  hash: Type.String(),
  definition: Definition,
  since: Type.String({ description: 'ISO 8601: when this definition was first seen.' }),
});
export type Pending = Static<typeof PendingSchema>;

export const PinEntrySchema = Type.Object({ pin: Type.Optional(PinSchema), pending: Type.Optional(PendingSchema) });
export type PinEntry = Static<typeof PinEntrySchema>;

/** One backend's pins, by the backend's own names. A record without entries still says its first catalog was seen. */
export const BackendPinsSchema = Type.Object({
  tools: Type.Record(Type.String(), PinEntrySchema),
  prompts: Type.Record(Type.String(), PinEntrySchema),
});
export type BackendPins = Static<typeof BackendPinsSchema>;

export const PINS_FILE_VERSION = 1;
export const PinsFileSchema = Type.Object({
  version: Type.Literal(PINS_FILE_VERSION),
  backends: Type.Record(Type.String(), BackendPinsSchema),
});
export type PinsFile = Static<typeof PinsFileSchema>;
