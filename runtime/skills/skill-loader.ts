/**
 * Reads one skill folder: `SKILL.md` (front matter + Markdown), the older
 * `manifest.json`, or both (the front matter wins for name, description,
 * version and author). A folder whose files are broken throws SkillLoadError
 * with the reason; a workflow that fails its checks is kept out, with its
 * reason, while the rest of the skill loads.
 */
import { lstat, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { Ajv, type ErrorObject } from 'ajv';
import { SkillFrontMatterSchema, SkillManifestSchema, type SkillFrontMatter, type SkillManifest } from '../../schemas/skill-files.js';
import { parseFrontMatter } from './front-matter.js';
import { compileWorkflow, type CompiledWorkflow } from './workflow-compiler.js';
import { listSkillFiles, type SkillFile } from './skill-resources.js';

export const SKILL_MD = 'SKILL.md';
export const MANIFEST_JSON = 'manifest.json';

export interface WorkflowProblem {
  workflow: string;
  message: string;
}

export interface LoadedSkill {
  name: string;
  folder: string;
  version: string;
  description: string;
  author: string;
  /** Gateway tools named in the manifest's `tools`. */
  declaredTools: string[];
  workflows: CompiledWorkflow[];
  workflowErrors: WorkflowProblem[];
  files: SkillFile[];
}

export class SkillLoadError extends Error {}

const ajv = new Ajv({ allErrors: true, strict: false });
const validateFrontMatter = ajv.compile<SkillFrontMatter>(SkillFrontMatterSchema);
const validateManifest = ajv.compile<SkillManifest>(SkillManifestSchema);

/** Loads `<folder>`, whose base name is the skill's name. */
export async function loadSkill(folder: string, folderName: string): Promise<LoadedSkill> {
  const [markdown, manifestText] = await Promise.all([readOptional(join(folder, SKILL_MD)), readOptional(join(folder, MANIFEST_JSON))]);
  if (markdown === undefined && manifestText === undefined) throw new SkillLoadError(`no ${SKILL_MD} or ${MANIFEST_JSON}`);
  const front = markdown === undefined ? undefined : frontMatterOf(markdown);
  const manifest = manifestText === undefined ? undefined : manifestOf(manifestText);

  const name = front?.name ?? manifest!.name;
  if (name !== folderName) {
    throw new SkillLoadError(`the name '${name}' in ${front ? SKILL_MD : MANIFEST_JSON} does not match the folder name '${folderName}'`);
  }
  const workflows: CompiledWorkflow[] = [];
  const workflowErrors: WorkflowProblem[] = [];
  for (const spec of manifest?.workflows ?? []) {
    if (workflows.some((w) => w.name === spec.name)) {
      workflowErrors.push({ workflow: spec.name, message: 'another workflow of this skill has the same name' });
      continue;
    }
    try {
      workflows.push(compileWorkflow(spec));
    } catch (err) {
      workflowErrors.push({ workflow: spec.name, message: (err as Error).message });
    }
  }
  const version = front?.metadata?.version ?? (manifest?.version === undefined ? '' : String(manifest.version));
  return {
    name,
    folder,
    version,
    description: front?.description ?? manifest?.description ?? '',
    author: front?.metadata?.author ?? manifest?.author ?? '',
    declaredTools: [...new Set((manifest?.tools ?? []).map((t) => (typeof t === 'string' ? t : t.name)))],
    workflows,
    workflowErrors,
    files: await listSkillFiles(name, folder),
  };
}

function frontMatterOf(markdown: string): SkillFrontMatter {
  let data: unknown;
  try {
    data = parseFrontMatter(markdown).data;
  } catch (err) {
    throw new SkillLoadError(`${SKILL_MD}: ${(err as Error).message}`);
  }
  if (!validateFrontMatter(data)) throw new SkillLoadError(`${SKILL_MD} front matter: ${describe(validateFrontMatter.errors)}`);
  return data;
}

function manifestOf(text: string): SkillManifest {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new SkillLoadError(`${MANIFEST_JSON} is not valid JSON: ${(err as Error).message}`);
  }
  if (!validateManifest(data)) throw new SkillLoadError(`${MANIFEST_JSON}: ${describe(validateManifest.errors)}`);
  return data;
}

/** The file's text, or undefined when there is none. A link is refused, not followed: it could name any file on the host. */
async function readOptional(path: string): Promise<string | undefined> {
  try {
    if ((await lstat(path)).isSymbolicLink()) throw new SkillLoadError(`${basename(path)} is a symbolic link; links in a skill folder are not followed`);
    return await readFile(path, 'utf8');
  } catch (err) {
    if (err instanceof SkillLoadError) throw err;
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new SkillLoadError(`cannot read ${path}: ${(err as Error).message}`);
  }
}

/** ajv errors as `key.path: message`; a union's many branches collapse into one line. */
function describe(errors: ErrorObject[] | null | undefined): string {
  const lines = new Set<string>();
  for (const e of errors ?? []) {
    const segments = e.instancePath.split('/').slice(1);
    if (e.keyword === 'required') segments.push(String(e.params.missingProperty));
    if (e.keyword === 'additionalProperties') segments.push(String(e.params.additionalProperty));
    const path =
      segments
        .map((s) => (/^\d+$/.test(s) ? `[${s}]` : `.${s}`))
        .join('')
        .replace(/^\./, '') || '(top level)';
    const message = e.keyword === 'required' ? 'is required' : e.keyword === 'additionalProperties' ? 'is not a known key' : (e.message ?? 'is invalid');
    lines.add(`${path} ${message}`);
  }
  return [...lines].join('; ');
}
