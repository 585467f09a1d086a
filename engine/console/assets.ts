// The console's browser assets: index.html and content-hashed script and style files. Run from
// the build (dist/), they are the files `npm run build` wrote to dist/console/; run from the
// sources (`npm start` on a fresh clone), console-ui/ is bundled in memory with esbuild (a dev
// dependency) on the first request, so an edit of the page is never shadowed by a stale build.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export interface ConsoleAssets {
  index: string;
  /** hashed name -> content type and bytes */
  files: Map<string, { type: string; body: Buffer }>;
}

const here = dirname(fileURLToPath(import.meta.url));
/**
 * The package root: the nearest folder above with a package.json (this file sits in engine/console, or in a
 * chunk of dist/).
 */
const packageRoot = (function up(dir: string): string {
  return existsSync(join(dir, 'package.json')) || dirname(dir) === dir ? dir : up(dirname(dir));
})(here);
/** Run from the build: this code is a file under dist/. */
const fromBuild = relative(packageRoot, here).split(sep)[0] === 'dist';
const built = join(packageRoot, 'dist', 'console');

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};
const typeOf = (name: string) => TYPES[name.slice(name.lastIndexOf('.'))] ?? 'application/octet-stream';

// process-wide on purpose: the page is the package's own files, the same for every engine
let loading: Promise<ConsoleAssets> | undefined;

/** The assets, loaded or bundled once per process. */
export function consoleAssets(): Promise<ConsoleAssets> {
  return (loading ??= load().catch((e) => {
    loading = undefined;
    throw e;
  }));
}

async function load(): Promise<ConsoleAssets> {
  if (fromBuild) {
    if (!existsSync(join(built, 'index.html')))
      throw new Error(`the console's assets are missing from ${built}: run npm run build`);
    const files = new Map<string, { type: string; body: Buffer }>();
    for (const name of readdirSync(join(built, 'assets')))
      files.set(name, { type: typeOf(name), body: readFileSync(join(built, 'assets', name)) });
    return { index: readFileSync(join(built, 'index.html'), 'utf8'), files };
  }
  // the bundler script is plain JavaScript shared with `npm run build` (console-ui/build.mjs)
  const { bundleConsole } = (await import(pathToFileURL(join(packageRoot, 'console-ui', 'build.mjs')).href)) as {
    bundleConsole(root: string): Promise<{ index: string; files: { name: string; body: Uint8Array }[] }>;
  };
  const b = await bundleConsole(packageRoot);
  return {
    index: b.index,
    files: new Map(b.files.map((f) => [f.name, { type: typeOf(f.name), body: Buffer.from(f.body) }])),
  };
}
