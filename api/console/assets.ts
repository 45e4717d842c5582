/**
 * Where the built console is: `dist/console/` beside the compiled gateway
 * (`npm run build` makes it with Vite from `console/`). Found from this
 * module whether it runs from source (`api/console/`) or from the build
 * (`dist/api/console/`).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// From source `dist/console/` is two levels up; from the build, `console/` is (the first is tried first: from the
// build it does not exist, while from source the second would be the console's own source folder).
const candidates = [new URL('../../dist/console/', import.meta.url), new URL('../../console/', import.meta.url)];

/** The folder holding `index.html`, or undefined when the console was not built. */
export function consoleAssetsDir(): string | undefined {
  const found = candidates.find((u) => existsSync(new URL('index.html', u)) && existsSync(new URL('assets/', u)));
  return found && fileURLToPath(found);
}
