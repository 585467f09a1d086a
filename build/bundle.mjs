// `npm run build`: the engine and the sandbox bundled by esbuild into dist/ (bin/engine.js runs
// dist/engine/cli/main.js and dist/sandbox/extension.js). One bundle with shared chunks, because
// resolving, reading and compiling some 500 modules was a third of the engine's start-up: see
// docs/benchmarks.md, Start-up. What the code imports lazily (`await import(...)`: the gateway,
// the console, the simulators) stays a chunk of its own that loads only when needed.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = resolve(fileURLToPath(import.meta.url), '../..');
const out = join(root, 'dist');

/**
 * A package imported lazily by its own name (`await import('ioredis')`) stays in node_modules:
 * esbuild's chunk of a CommonJS package would export only `default`. To have a lazily loaded
 * package bundled, import it from a module of the engine that is itself imported lazily
 * (engine/runtime/tracing-sdk-parts.ts). Packages loaded through createRequire stay there too.
 */
const lazyPackages = {
  name: 'lazy-packages',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (a) => (a.kind === 'dynamic-import' ? { path: a.path, external: true } : undefined));
  },
};

/**
 * engine/runtime/precompiled.ts becomes ajv's standalone code of the engine's config schemas and
 * of the JSON Schema meta-schema (written by engine/dsl/precompile.ts): a start loads these
 * validators as code instead of compiling them.
 */
async function precompiledValidators() {
  const { tsImport } = await import('tsx/esm/api');
  const { standaloneModule } = await tsImport('../engine/dsl/precompile.ts', import.meta.url);
  const contents = standaloneModule();
  const target = join(root, 'engine', 'runtime', 'precompiled.ts');
  return {
    name: 'precompiled-validators',
    setup(b) {
      b.onLoad({ filter: /precompiled\.ts$/ }, (a) => (a.path === target ? { contents, loader: 'js', resolveDir: root } : undefined));
    },
  };
}

/**
 * V8 keeps a script's source as two bytes per character once one character is beyond Latin-1:
 * the chunk holding undici (1.8 MB) took 3.4 MiB for a ’ in its comments. esbuild already escapes
 * strings and regular expressions (charset ascii); what is left is in comments, where an escape
 * reads the same.
 */
function latin1(text) {
  return text.replace(/[^\0-\xff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export async function bundleEngine() {
  rmSync(out, { recursive: true, force: true });
  const validators = await precompiledValidators();
  const result = await build({
    absWorkingDir: root,
    entryPoints: { 'engine/cli/main': 'engine/cli/main.ts', 'sandbox/extension': 'sandbox/extension.ts' },
    outdir: out,
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    // a package's ES module build where it has one (OpenTelemetry, cockatiel): esbuild can leave out
    // what is never imported (OpenTelemetry's semantic conventions were 195 KB parsed at every start)
    mainFields: ['module', 'main'],
    target: 'node20',
    charset: 'ascii',
    // names and layout kept readable: stack traces name the source functions
    minify: false,
    keepNames: false,
    legalComments: 'inline',
    metafile: true,
    write: false,
    logLevel: 'warning',
    plugins: [lazyPackages, validators],
    // CommonJS packages in the bundle call require() for node's modules
    banner: { js: "import { createRequire as __engineRequire } from 'node:module'; const require = __engineRequire(import.meta.url);" },
  });
  // a package both bundled and left external would run as two copies with two states
  const bundled = new Set(Object.keys(result.metafile.inputs).map((p) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(p)?.[1]).filter(Boolean));
  const external = new Set(Object.values(result.metafile.outputs).flatMap((o) => o.imports).filter((i) => i.external && !i.path.startsWith('node:')).map((i) => i.path.split('/').slice(0, i.path.startsWith('@') ? 2 : 1).join('/')));
  const both = [...external].filter((p) => bundled.has(p));
  if (both.length) throw new Error(`bundled and also imported lazily from node_modules: ${both.join(', ')}`);
  for (const f of result.outputFiles) {
    mkdirSync(dirname(f.path), { recursive: true });
    writeFileSync(f.path, latin1(f.text));
  }
  return result;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const r = await bundleEngine();
  const files = Object.keys(r.metafile.outputs);
  console.log(`engine: ${files.length} files -> ${out}`);
}
