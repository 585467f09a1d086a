#!/usr/bin/env node
// CLI entry. Runs the JavaScript build in dist/ (`npm run build`: dist/engine.cjs and its code
// cache, see load-build.js), which is what the package and the image ship. A source checkout with
// no build, or with a build older than its TypeScript, runs the sources through tsx (a dev
// dependency) instead, so that an edit is never shadowed by a stale build; tsx compiles each module
// once at start-up, never per request.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const at = (path) => fileURLToPath(new URL(`../${path}`, import.meta.url));
const built = at('dist/engine.cjs');

/** Newest modification time of the .ts files below `dir` (0 when there is no such folder). */
function newestSource(dir) {
  if (!existsSync(dir)) return 0;
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile() && e.name.endsWith('.ts')) newest = Math.max(newest, statSync(`${e.parentPath}/${e.name}`).mtimeMs);
  }
  return newest;
}

const hasBuild = existsSync(built);
const fresh =
  hasBuild &&
  statSync(built).mtimeMs >=
    Math.max(newestSource(at('engine')), newestSource(at('packages')), newestSource(at('sandbox')));

let register;
if (!fresh) {
  try {
    ({ register } = await import('tsx/esm/api'));
  } catch (e) {
    if (e.code !== 'ERR_MODULE_NOT_FOUND') throw e;
    if (!hasBuild) {
      process.stderr.write(
        'engine: no build in dist/ and no tsx to run the TypeScript sources: run `npm run build`, or `npm ci` with dev dependencies\n',
      );
      process.exit(1);
    }
    // a production install (no tsx) beside newer sources: the build is all that can run
  }
}

let main, sandboxExtension;
if (register) {
  register();
  ({ main } = await import('../engine/cli/main.ts'));
  ({ sandboxExtension } = await import('../sandbox/extension.ts'));
} else {
  const { loadBuild } = await import('./load-build.js');
  // ENGINE_CODE_CACHE=write: `npm run build` starting the sandbox once to write the code cache
  ({ main, sandboxExtension } = loadBuild(built, { writeCache: process.env.ENGINE_CODE_CACHE === 'write' }).exports);
}
// the product: the engine library plus the embedded sandbox, which plugs in as an extension
await main(process.argv, [sandboxExtension()]);
