/**
 * The files of a skill folder: the front matter of `SKILL.md` (Agent Skills
 * format) and the older `manifest.json`, whose `workflows` the gateway serves
 * as tools. Validated with ajv at load; see docs/skills.md.
 */
import { Type, type Static } from '@sinclair/typebox';

/** Skill (and so folder) names: a superset of the Agent Skills rule (lowercase, digits, `-`), also taking older manifest names. */
export const SKILL_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$';
/** Workflow names become part of a tool name (`<skill>_<workflow>`). */
export const WORKFLOW_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$';
/** Step ids appear in `{{steps.<id>.text}}`, so no dots. */
export const STEP_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$';

/**
 * SKILL.md front matter. Parsed with YAML's failsafe schema, so every scalar is
 * a string (`version: 1.0` stays "1.0"). Unknown keys are allowed: agents add
 * their own (`allowed-tools`, `model`, ...).
 */
export const SkillFrontMatterSchema = Type.Object({
  name: Type.String({ pattern: SKILL_NAME_PATTERN }),
  description: Type.String({ minLength: 1, maxLength: 1024 }),
  license: Type.Optional(Type.String()),
  compatibility: Type.Optional(Type.String()),
  metadata: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'Free-form; `version` and `author` are shown in the skill record.' })),
});
export type SkillFrontMatter = Static<typeof SkillFrontMatterSchema>;

export const WorkflowStepSchema = Type.Object(
  {
    id: Type.String({ pattern: STEP_ID_PATTERN }),
    tool: Type.String({ minLength: 1, description: 'A tool name as the gateway exposes it.' }),
    arguments: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), { description: 'May hold `{{inputs.<name>}}` and `{{steps.<id>.text}}` in string values.' }),
    ),
    depends_on: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { description: 'Step ids that must finish first.' })),
  },
  { additionalProperties: false },
);

export const WorkflowSchema = Type.Object(
  {
    name: Type.String({ pattern: WORKFLOW_NAME_PATTERN }),
    description: Type.Optional(Type.String()),
    input_schema: Type.Optional(
      Type.Object(
        { type: Type.Literal('object'), properties: Type.Optional(Type.Record(Type.String(), Type.Unknown())) },
        { additionalProperties: true, description: 'JSON Schema of the inputs (an object schema).' },
      ),
    ),
    steps: Type.Array(WorkflowStepSchema, { minItems: 1 }),
  },
  { additionalProperties: false },
);
export type WorkflowSpec = Static<typeof WorkflowSchema>;

/** A gateway tool the skill relies on: its exposed name, or an object naming it. */
const RequiredTool = Type.Union([Type.String({ minLength: 1 }), Type.Object({ name: Type.String({ minLength: 1 }) }, { additionalProperties: true })]);

export const SkillManifestSchema = Type.Object(
  {
    name: Type.String({ pattern: SKILL_NAME_PATTERN }),
    version: Type.Optional(Type.Union([Type.String(), Type.Number()])),
    description: Type.Optional(Type.String()),
    author: Type.Optional(Type.String()),
    tools: Type.Optional(Type.Array(RequiredTool)),
    workflows: Type.Optional(Type.Array(WorkflowSchema)),
  },
  { additionalProperties: true },
);
export type SkillManifest = Static<typeof SkillManifestSchema>;

/** `<skills dir>/.skills-state.json`: the statuses set through the API. */
export const SkillStateFileSchema = Type.Object({
  skills: Type.Record(Type.String(), Type.Union([Type.Literal('enabled'), Type.Literal('disabled')])),
});
export type SkillStateFile = Static<typeof SkillStateFileSchema>;
