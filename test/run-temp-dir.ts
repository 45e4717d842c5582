/**
 * One temporary folder per test run, made when vitest loads its config and
 * removed when the run ends (vitest's globalSetup, in the main process).
 * Every worker, and every gateway, backend or tool a test starts, sees it as
 * TMPDIR, so the folders the tests make with `mkdtemp(tmpdir())` (thousands
 * of them) go with it instead of piling up in /tmp on a developer's machine.
 *
 * Its path is short on purpose (`gwt-XXXXXX` in the system's temporary folder): Unix sockets made under
 * it must stay below the kernel's 108-byte limit. Podman's helper does not
 * nest its storage here at all (test/helpers/podman.ts says why).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Set while a run is on: a config loaded twice in one run keeps the first folder. */
const RUN_TMPDIR = 'GATEWAY_TEST_RUN_TMPDIR';

/** The run's folder, made on first use. */
export function runTempDir(): string {
  const made = process.env[RUN_TMPDIR];
  if (made) return made;
  const dir = mkdtempSync(join(tmpdir(), 'gwt-'));
  process.env[RUN_TMPDIR] = dir;
  return dir;
}

/** vitest globalSetup: nothing to set up (the config made the folder); removes it when the run ends. */
export default function setup(): () => void {
  const dir = runTempDir();
  return () => rmSync(dir, { recursive: true, force: true });
}
