/**
 * `<skills dir>/.skills-state.json`: the status set for each skill through
 * the API, so it survives a restart. Written atomically (temp file + rename,
 * write-file-atomic), one write at a time. A skill with no entry follows
 * `skills.default_status`.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { Ajv } from 'ajv';
import { SkillStateFileSchema, type SkillStateFile } from '../../schemas/skill-files.js';

export const STATE_FILE = '.skills-state.json';

export type SkillStatus = 'enabled' | 'disabled';

const validate = new Ajv({ strict: false }).compile<SkillStateFile>(SkillStateFileSchema);

export class SkillStateStore {
  readonly path: string;
  private statuses = new Map<string, SkillStatus>();
  private writing: Promise<unknown> = Promise.resolve();

  constructor(directory: string) {
    this.path = join(directory, STATE_FILE);
  }

  /** Reads the file; a missing file is an empty state, a broken one throws (the caller logs it and starts empty). */
  async load(): Promise<void> {
    this.statuses = new Map();
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    const data: unknown = JSON.parse(text);
    if (!validate(data)) throw new Error(`${this.path} does not hold {"skills": {"<name>": "enabled" | "disabled"}}`);
    this.statuses = new Map(Object.entries(data.skills));
  }

  get(name: string): SkillStatus | undefined {
    return this.statuses.get(name);
  }

  /**
   * Writes the file with this status and only then records it, so memory and
   * disk agree even when the write fails (the promise rejects). Writes run one
   * at a time, in call order.
   */
  set(name: string, status: SkillStatus): Promise<void> {
    const write = async () => {
      const next = new Map(this.statuses).set(name, status);
      const data: SkillStateFile = { skills: Object.fromEntries([...next].sort(([a], [b]) => a.localeCompare(b))) };
      await writeFileAtomic(this.path, `${JSON.stringify(data, null, 2)}\n`);
      this.statuses = next;
    };
    const done = this.writing.then(write);
    this.writing = done.catch(() => undefined);
    return done;
  }
}
