// How the folders of engine/ depend on each other. The engine library knows nothing of the
// sandbox: the simulators are an extension that the program (bin/engine.js) passes to the CLI, so
// no file under engine/ may name sandbox/. Inside engine/, the folders form layers (LAYERS, bottom
// first): a file imports from its own folder or from folders below it, never above, and no files
// import each other in a circle (`import type` and dynamic `import()` count too).
import { it, expect } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve('.');
const ENGINE = join(ROOT, 'engine');
const SPECIFIER = /\b(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g;

/**
 * The layers of engine/, bottom first. `.` is the files directly in engine/ (engine.ts, the
 * library's entry). docs/architecture.md draws this order.
 */
const LAYERS = [
  'core', // diagnostics, YAML positions, the error catalog and PlatformError, banking checks
  'schemas', // ajv, config checks, precompiled validators
  'config', // values, environment and engine settings, placeholders
  'expressions', // JSONata compiled with the engine's functions and limits
  'observability', // logs, metrics, secret masking
  'outbound', // vendor HTTP calls, retries, URL templates, webhook signatures
  'amqp', // AMQP client helpers
  'pipeline', // exchanges, compiled routes and step lists, spans, error templates
  'store', // what replicas remember (memory, Redis)
  'outbox', // webhook events written durably, then published (publisher.ts)
  'steps', // step kinds
  'http', // the HTTP server, OpenAPI
  'sources', // source kinds (http, amqp, cron, direct)
  'dsl', // route files: schema, loader, references
  'reload', // route reloads and their diff
  '.', // engine.ts, cli-extension.ts
  'testing', // route tests runner
  'gateway', // agent tool gateway (MCP)
  'console', // browser console
  'dev', // file watching for `engine dev`
  'cli', // the `engine` command, build-time generators
];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name);
    return d.isDirectory() ? sources(p) : /\.(ts|js|mjs)$/.test(d.name) ? [p] : [];
  });
}

/** The relative specifiers of a file, with the file each names (undefined outside engine/'s sources). */
function imports(file: string): { spec: string; target: string }[] {
  const out: { spec: string; target: string }[] = [];
  for (const m of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
    if (!m[1].startsWith('.')) continue;
    let target = resolve(dirname(file), m[1]);
    if (!existsSync(target) && target.endsWith('.js') && existsSync(target.slice(0, -3) + '.ts'))
      target = target.slice(0, -3) + '.ts';
    out.push({ spec: m[1], target });
  }
  return out;
}

/** The layer a file under engine/ belongs to: its first folder, or `.` for engine/'s own files. */
function layerOf(file: string): string {
  const parts = relative(ENGINE, file).split('/');
  return parts.length > 1 ? parts[0] : '.';
}

const files = sources(ENGINE);

it('no file under engine/ imports anything under sandbox/', () => {
  const offending: string[] = [];
  expect(files.length).toBeGreaterThan(20);
  for (const file of files) {
    const rel = relative(ROOT, file);
    for (const { spec, target } of imports(file)) {
      if (relative(ROOT, target).startsWith('sandbox/')) offending.push(`${rel} imports ${spec}`);
    }
  }
  expect(offending).toEqual([]);
});

it('the program registers the sandbox as an extension', () => {
  expect(readFileSync('bin/engine.js', 'utf8')).toContain("import('../sandbox/extension.ts')");
});

it('every folder under engine/ has its place in the layers', () => {
  const folders = readdirSync(ENGINE, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name);
  expect(folders.filter((f) => !LAYERS.includes(f)).map((f) => `engine/${f}/ is missing from LAYERS`)).toEqual([]);
  expect(new Set(LAYERS).size).toBe(LAYERS.length);
});

it('no file imports from a folder above its own (LAYERS, bottom first)', () => {
  const upward: string[] = [];
  for (const file of files) {
    const from = layerOf(file);
    for (const { spec, target } of imports(file)) {
      if (relative(ENGINE, target).startsWith('..')) continue;
      const to = layerOf(target);
      if (LAYERS.indexOf(to) > LAYERS.indexOf(from))
        upward.push(`${relative(ROOT, file)} (${from}) imports ${spec} (${to})`);
    }
  }
  expect(upward).toEqual([]);
});

/** Each import cycle among engine/'s files once, as `a.ts -> b.ts -> a.ts`. */
function cycles(graph: Map<string, string[]>): string[] {
  const found: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (f: string): void => {
    state.set(f, 'open');
    stack.push(f);
    for (const t of graph.get(f) ?? []) {
      if (state.get(t) === 'open')
        found.push([...stack.slice(stack.indexOf(t)), t].map((p) => relative(ENGINE, p)).join(' -> '));
      else if (!state.has(t)) visit(t);
    }
    stack.pop();
    state.set(f, 'done');
  };
  for (const f of [...graph.keys()].sort()) if (!state.has(f)) visit(f);
  return found;
}

it('no files under engine/ import each other in a circle', () => {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    graph.set(
      file,
      [
        ...new Set(
          imports(file)
            .map((i) => i.target)
            .filter((t) => !relative(ENGINE, t).startsWith('..') && existsSync(t)),
        ),
      ].sort(),
    );
  }
  expect(cycles(graph)).toEqual([]);
});

it('docs/architecture.md draws the layers in this order', () => {
  const doc = readFileSync('docs/architecture.md', 'utf8');
  const picture = /## Layers\n[\s\S]*?```text\n([\s\S]*?)```/.exec(doc)?.[1] ?? '';
  const drawn = picture
    .trim()
    .split('\n')
    .map((l) => l.split(/\s+/)[0])
    .reverse();
  expect(drawn).toEqual(LAYERS.map((l) => (l === '.' ? 'engine.ts' : l)));
});

it('finds an upward import and a cycle when there is one', () => {
  const a = join(ENGINE, 'a.ts'),
    b = join(ENGINE, 'b.ts'),
    c = join(ENGINE, 'c.ts');
  expect(
    cycles(
      new Map([
        [a, [b]],
        [b, [c]],
        [c, [a]],
      ]),
    ),
  ).toEqual(['a.ts -> b.ts -> c.ts -> a.ts']);
  expect(
    cycles(
      new Map([
        [a, [b]],
        [b, [c]],
        [c, []],
      ]),
    ),
  ).toEqual([]);
  expect(LAYERS.indexOf(layerOf(join(ENGINE, 'cli', 'main.ts')))).toBeGreaterThan(
    LAYERS.indexOf(layerOf(join(ENGINE, 'core', 'errors.ts'))),
  );
});
