// A hand-written FX program as JavaScript, for the start-up benchmarks: its TypeScript entry and
// everything it imports (its packages too) bundled by esbuild into one CommonJS file in
// dist/bench-limit/, the shape a careful author ships and the engine's own build has. The programs
// were run as transpiled modules resolving packages from node_modules until session 16, which made
// them start some 60% slower than bundled (550 against 330 ms to the first answer): a weak reference
// for the engine's start-up. A V8 code cache (the engine's build has one) made no difference to the
// plain program beyond the run-to-run spread (315 against 325 ms), so none is made here.
import { buildSync } from 'esbuild';
import { join, parse, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const out = join(root, 'dist/bench-limit');

/** Bundles `entry` (a path from the project root); returns the bundle's path. */
export function buildLimit(entry: string): string {
  const outfile = join(out, `${parse(entry).name}.cjs`);
  buildSync({
    absWorkingDir: root,
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    mainFields: ['module', 'main'],
    logLevel: 'warning',
  });
  return outfile;
}
