/**
 * Loads every skill folder of the skills directory. Only real folders count:
 * hidden entries and links are passed over (a link could lead anywhere on the
 * host, or back into the directory). A folder that does not load is left out
 * and its reason reported once; the others load as usual.
 */
import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../observability/logging/logger.js';
import { loadSkill, SkillLoadError, type LoadedSkill } from './skill-loader.js';
import { DIRECTORY_KEY, type SkillProblems } from './skill-problems.js';

/** `previous` are the skills loaded by the last scan, so that only what is new gets logged. */
export async function loadSkillDirectory(
  dir: string,
  previous: ReadonlyMap<string, LoadedSkill>,
  problems: SkillProblems,
  log: Logger,
): Promise<Map<string, LoadedSkill>> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    // No folder is the usual case (no skills): say so quietly; anything else is worth a warning.
    const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
    const message = missing ? `no skills: ${dir} does not exist` : `skills directory ${dir} cannot be read: ${(err as Error).message}`;
    problems.report(DIRECTORY_KEY, message, missing ? 'debug' : 'warn');
    return new Map();
  }
  problems.clear(DIRECTORY_KEY);
  // A Dirent describes the entry itself: a link to a folder is a link here, not a directory.
  const folders = entries.filter((e) => e.isDirectory() && !e.name.startsWith('.')).sort((a, b) => a.name.localeCompare(b.name));
  const loaded = await Promise.all(
    folders.map(async (entry) => {
      try {
        return await loadSkill(join(dir, entry.name), entry.name);
      } catch (err) {
        if (!(err instanceof SkillLoadError)) log.debug({ err }, 'unexpected skill load failure');
        problems.report(entry.name, `skill '${entry.name}' not loaded: ${(err as Error).message}`);
        return undefined;
      }
    }),
  );
  const skills = new Map<string, LoadedSkill>();
  for (const skill of loaded) {
    if (!skill) continue;
    skills.set(skill.name, skill);
    if (problems.clear(skill.name) || !previous.has(skill.name)) {
      log.info({ skill: skill.name, workflows: skill.workflows.length, files: skill.files.length }, `skill ${skill.name} loaded`);
    }
    for (const { workflow, message } of skill.workflowErrors) {
      problems.report(`${skill.name}/${workflow}`, `workflow '${workflow}' of skill '${skill.name}' is not served: ${message}`);
    }
  }
  for (const name of previous.keys()) if (!skills.has(name)) log.info({ skill: name }, `skill ${name} is gone`);
  forgetFixed(problems, skills, folders);
  return skills;
}

/** Forgets the reasons of folders and workflows that are gone or fixed, so a new breakage is logged again. */
function forgetFixed(problems: SkillProblems, skills: ReadonlyMap<string, LoadedSkill>, folders: Dirent[]): void {
  for (const key of problems.keys()) {
    const [folder, workflow] = key.split('/');
    if (folder === DIRECTORY_KEY) continue;
    const skill = skills.get(folder);
    const stillBroken = workflow === undefined ? !skill && folders.some((f) => f.name === folder) : skill?.workflowErrors.some((w) => w.workflow === workflow);
    if (!stillBroken) problems.clear(key);
  }
}
