// `npm run build`: the engine and the sandbox bundled by esbuild into one CommonJS file,
// dist/engine.cjs (entry build/entry.ts; bin/engine.js runs it through bin/load-build.js), then
// V8's code cache of it, dist/engine.cjs.cache, written by starting the sandbox once. Resolving,
// reading and compiling some 500 modules was a third of the engine's start-up, and with the cache a
// start reads bytecode instead of compiling: see docs/benchmarks.md, Start-up. One file rather than
// lazily loaded chunks: what a start does not use is never run, and with the cache costs little.
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = resolve(fileURLToPath(import.meta.url), '../..');
const out = join(root, 'dist');

/**
 * A package imported lazily by its own name (`await import('ioredis')`) stays in node_modules and
 * is required when first needed, so a start without Redis never parses it. Packages loaded through
 * createRequire (node-cron) stay there too.
 */
const lazyPackages = {
  name: 'lazy-packages',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (a) =>
      a.kind === 'dynamic-import' ? { path: a.path, external: true } : undefined,
    );
  },
};

/**
 * engine/schemas/precompiled.ts becomes ajv's standalone code of the engine's config schemas and
 * of the JSON Schema meta-schema (written by engine/cli/precompile.ts): a start loads these
 * validators as code instead of compiling them.
 */
async function precompiledValidators() {
  const { tsImport } = await import('tsx/esm/api');
  const { standaloneModule } = await tsImport('../engine/cli/precompile.ts', import.meta.url);
  const contents = standaloneModule();
  const target = join(root, 'engine', 'schemas', 'precompiled.ts');
  return {
    name: 'precompiled-validators',
    setup(b) {
      b.onLoad({ filter: /precompiled\.ts$/ }, (a) =>
        a.path === target ? { contents, loader: 'js', resolveDir: root } : undefined,
      );
    },
  };
}

/**
 * engine/store/migration-files.ts becomes the text of the durable store's SQL migrations
 * (engine/store/migrations/*.sql): the bundle carries them instead of reading a folder it lacks.
 */
function storeMigrations() {
  const dir = join(root, 'engine', 'store', 'migrations');
  const target = join(root, 'engine', 'store', 'migration-files.ts');
  const files = Object.fromEntries(
    readdirSync(dir)
      .filter((f) => f.endsWith('.sql'))
      .map((f) => [f, readFileSync(join(dir, f), 'utf8')]),
  );
  return {
    name: 'store-migrations',
    setup(b) {
      b.onLoad({ filter: /migration-files\.ts$/ }, (a) =>
        a.path === target
          ? { contents: `export function migrationFiles() { return ${JSON.stringify(files)}; }`, loader: 'js' }
          : undefined,
      );
    },
  };
}

/**
 * The bundle in ASCII: bin/load-build.js then reads it as Latin-1, which node copies as it is
 * (decoding 4.6 MB of UTF-8 took 8-10 ms of every start), into a string kept off V8's heap. And V8
 * keeps a script's source as two bytes per character once one character is beyond Latin-1 (the
 * chunk holding undici, 1.8 MB, took 3.4 MiB for a ’ in its comments). esbuild already escapes
 * strings and regular expressions (charset ascii); what is left is in comments, where an escape
 * reads the same.
 */
function ascii(text) {
  return text.replace(/[^\0-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export async function bundleEngine() {
  rmSync(out, { recursive: true, force: true });
  const validators = await precompiledValidators();
  const result = await build({
    absWorkingDir: root,
    entryPoints: ['build/entry.ts'],
    outfile: join(out, 'engine.cjs'),
    bundle: true,
    format: 'cjs',
    platform: 'node',
    // a package's ES module build where it has one (OpenTelemetry, cockatiel): esbuild can leave out
    // what is never imported (OpenTelemetry's semantic conventions were 195 KB parsed at every start)
    mainFields: ['module', 'main'],
    target: 'node20',
    // import() of a package left in node_modules becomes require(): a script run by vm.Script
    // (bin/load-build.js) has no import() without an experimental flag
    supported: { 'dynamic-import': false },
    charset: 'ascii',
    // names and layout kept readable: stack traces name the source functions
    minify: false,
    keepNames: false,
    legalComments: 'inline',
    metafile: true,
    write: false,
    logLevel: 'warning',
    plugins: [lazyPackages, validators, storeMigrations()],
    define: { 'import.meta.url': '__engineModuleUrl' },
    // inside the CommonJS wrapper bin/load-build.js compiles (WRAPPER there): V8 then compiles the
    // file's text as read, not a wrapped copy of it; on the first line, so line numbers stay the file's
    banner: {
      js: "(function (exports, require, module, __filename, __dirname) {const __engineModuleUrl = require('node:url').pathToFileURL(__filename).href;",
    },
    footer: { js: '})' },
  });
  // a package both bundled and left external would run as two copies with two states
  const bundled = new Set(
    Object.keys(result.metafile.inputs)
      .map((p) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(p)?.[1])
      .filter(Boolean),
  );
  const external = new Set(
    Object.values(result.metafile.outputs)
      .flatMap((o) => o.imports)
      .filter((i) => i.external && !i.path.startsWith('node:'))
      .map((i) =>
        i.path
          .split('/')
          .slice(0, i.path.startsWith('@') ? 2 : 1)
          .join('/'),
      ),
  );
  const both = [...external].filter((p) => bundled.has(p));
  if (both.length) throw new Error(`bundled and also imported lazily from node_modules: ${both.join(', ')}`);
  for (const f of result.outputFiles) {
    mkdirSync(dirname(f.path), { recursive: true });
    writeFileSync(f.path, ascii(f.text));
  }
  return result;
}

/**
 * Starts the sandbox from the new build, asks it for an FX rate (so the request path is compiled
 * too) and stops it (SIGTERM); resolves when it exited, rejects if it did not start or exit cleanly.
 */
async function startSandboxOnce(extraEnv, timeoutMs) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OTEL_')));
  const child = spawn(
    process.execPath,
    [join(root, 'bin', 'engine.js'), 'run', 'routes/', '--env', 'sandbox', '--host', '127.0.0.1', '--port', '0'],
    { cwd: root, env: { ...env, ...extraEnv, LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const url = await new Promise((done, fail) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`the built engine did not start within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const read = (b) => {
      output += b;
      const started = output
        .split('\n')
        .map((l) => {
          try {
            return JSON.parse(l);
          } catch {
            return undefined;
          }
        })
        .find((l) => l?.msg === 'engine started');
      if (started) {
        clearTimeout(timer);
        done(started.url);
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.on('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`the built engine exited with ${code} before it started:\n${output}`));
    });
  });
  await fetch(`${url}/foreign-exchange/exchange-rates`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ buyCurrency: 'EUR', sellCurrency: 'USD', rateType: 'SPOT' }),
  }).then(
    (r) => r.arrayBuffer(),
    () => undefined,
  );
  // a cache names the bundle by its status too (spares a start the CRC-32 of the bundle) only
  // once the bundle's last change lies 2 s back (bin/load-build.js, unchangedSince)
  const age = Date.now() - statSync(join(out, 'engine.cjs')).ctimeMs;
  if (extraEnv.ENGINE_CODE_CACHE === 'write' && age < 2_500) await new Promise((r) => setTimeout(r, 2_500 - age));
  child.removeAllListeners('exit');
  const code = await new Promise((done) => {
    child.once('exit', done);
    child.kill('SIGTERM');
  });
  if (code !== 0) throw new Error(`the built engine stopped with ${code}:\n${output}`);
  return output;
}

/**
 * V8's code cache of the new build: the sandbox started twice. The first start (no code cache)
 * fills start-up caches (YAML values, JSONata trees, schema validators: engine/core/disk-cache.ts)
 * in a folder of the build's own; the second, warm as an operator's starts are, runs with
 * ENGINE_CODE_CACHE=write and bin/load-build.js writes the code cache as it exits. So the cache
 * holds what a warm start runs, whatever the project's .engine/cache held: a cache made by a cold
 * start also held the YAML parser's and ajv's compiling, which every warm start then deserialized
 * for nothing (all routes 376 -> 405 ms to the first answer, one route 178 -> 184; a cold start,
 * the first after an edit, compiles those instead). A build outside the project (no routes/) gets
 * no cache; its starts compile.
 */
export async function writeCodeCache({ timeoutMs = 60_000 } = {}) {
  const cache = join(out, 'engine.cjs.cache');
  rmSync(cache, { force: true });
  if (!existsSync(join(root, 'routes'))) return 'no routes/ to start: no code cache';
  const caches = mkdtempSync(join(tmpdir(), 'engine-build-caches-'));
  try {
    await startSandboxOnce({ ENGINE_CODE_CACHE: 'off', ENGINE_CACHE: caches }, timeoutMs);
    const output = await startSandboxOnce({ ENGINE_CODE_CACHE: 'write', ENGINE_CACHE: caches }, timeoutMs);
    if (!existsSync(cache)) throw new Error(`the built engine wrote no code cache:\n${output}`);
  } finally {
    rmSync(caches, { recursive: true, force: true });
  }
  return cache;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const r = await bundleEngine();
  console.log(`engine: ${Object.keys(r.metafile.outputs).join(', ')}`);
  console.log(`engine: code cache ${await writeCodeCache()}`);
}
