/**
 * The servers a TUI offers, backed by the servers file: listing (the file,
 * `--server`, local sessions), and the changes the Servers view makes, each
 * applied to the file as it is on disk now (another program may have
 * changed it meanwhile).
 */
import { readServersFile, withActive, withoutServer, withServer, writeServersFile, type ServerEntry } from './servers-file.js';
import { serverChoices, type ServerChoice } from './server-choices.js';

export class ServerDirectory {
  constructor(
    readonly path: string,
    private readonly flags: { server?: string; token?: string } = {},
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  /** Every server and the one to start with; throws ServersFileError on a broken file. */
  load(): { choices: ServerChoice[]; active: ServerChoice } {
    return serverChoices({ file: readServersFile(this.path), ...this.flags, env: this.env });
  }

  /** The list again (sessions come and go), keeping `active` in it. */
  list(active: ServerChoice): ServerChoice[] {
    const { choices } = this.load();
    return choices.some((c) => sameServer(c, active)) ? choices : [active, ...choices];
  }

  setActive(name: string): void {
    writeServersFile(this.path, withActive(readServersFile(this.path), name));
  }

  add(entry: ServerEntry): void {
    writeServersFile(this.path, withServer(readServersFile(this.path), entry));
  }

  remove(name: string): void {
    writeServersFile(this.path, withoutServer(readServersFile(this.path), name));
  }
}

export const sameServer = (a: ServerChoice, b: ServerChoice): boolean => a.name === b.name && a.url === b.url;
