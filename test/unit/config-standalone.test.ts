// The build carries the validators of the engine's own config schemas as ajv standalone code
// (engine/dsl/config-standalone.ts, put in place of config-validators.ts by build/bundle.mjs), so
// that a start loads them instead of compiling the schemas. They must cover every config a
// project has, and a broken route must read the same with them as with ajv compiling at load.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { ValidateFunction } from 'ajv';
import { standaloneModule } from '../../engine/dsl/config-standalone.ts';
import { tmpProject } from '../helpers/tmp-project.ts';

// what config-check.ts finds in place of the build's module: the generated validators or none
const lookups = vi.hoisted(() => ({ validators: new Map<string, unknown>(), found: new Set<string>(), missing: new Set<string>() }));
vi.mock('../../engine/dsl/config-validators.ts', () => ({
  precompiled: {
    get size() { return lookups.validators.size; },
    get(key: string) {
      (lookups.validators.has(key) ? lookups.found : lookups.missing).add(key);
      return lookups.validators.get(key);
    },
  },
}));

const ROOT = resolve(import.meta.dirname, '../..');
let generated: Map<string, ValidateFunction>;

beforeAll(async () => {
  // the generated code calls require() for ajv's runtime helpers (the bundle resolves them)
  const file = join(mkdtempSync(join(tmpdir(), 'engine-validators-')), 'validators.mjs');
  writeFileSync(file, `import { createRequire } from 'node:module';\nconst require = createRequire(${JSON.stringify(join(ROOT, 'package.json'))});\n${standaloneModule()}`);
  generated = (await import(pathToFileURL(file).href)).precompiled;
}, 60_000);

/** A fresh engine (config-check.ts keeps what it compiled) with or without the generated validators. */
async function freshEngine(withGenerated: boolean) {
  lookups.validators = withGenerated ? generated : new Map();
  lookups.found.clear();
  lookups.missing.clear();
  vi.resetModules();
  const { lintProject } = await import('../../engine/engine.ts');
  const { loadExtensions } = await import('../../engine/cli/extensions.ts');
  const { sandboxExtension } = await import('../../sandbox/extension.ts');
  const { createLogger } = await import('../../engine/runtime/logger.ts');
  const { formatDiagnostic } = await import('../../engine/dsl/diagnostics.ts');
  return async (root: string, env?: string) => {
    const extensions = await loadExtensions([sandboxExtension()], ['node', 'engine', 'lint']);
    const diags = await lintProject({ routes: ['routes'], root, env, extensions, logger: createLogger('silent'), processEnv: {} });
    return diags.map((d) => formatDiagnostic({ ...d, file: d.file.replace(/^.*routes\//, 'routes/') }));
  };
}

const VALUES = 'base: ${demo-base-url}\n';
/** Routes with one mistake each, of the kinds config-check reports differently. */
const BROKEN: Record<string, string> = {
  'routes/typo.yaml': 'id: typo\nvalues: demo-v1\nfrom:\n  http: { method: POST, path: /a }\nsteps:\n  - to-http:\n      method: GET\n      url: "{{base}}/x/{ref}"\n      path-param: { ref: params.ref }\n',
  'routes/missing.yaml': 'id: missing\nvalues: demo-v1\nfrom:\n  http: { method: POST }\nsteps:\n  - log: { message: "\'hi\'" }\n',
  'routes/enum.yaml': 'id: enum\nvalues: demo-v1\nfrom:\n  http: { method: PSOT, path: /b }\nsteps:\n  - log: { message: "\'hi\'", level: loud }\n',
  'routes/types.yaml': 'id: types\nvalues: demo-v1\nfrom:\n  http: { method: POST, path: /c }\nsteps:\n  - to-http:\n      method: GET\n      url: "{{base}}/y"\n      retry: { maximumRetries: many, enabled: 3 }\n',
  'routes/handler.yaml': 'id: handler\nvalues: demo-v1\nfrom:\n  http: { method: POST, path: /d }\nsteps:\n  - log: { message: "\'hi\'" }\non-exception:\n  - when: [oops]\n    status: nine\n',
  'routes/clients.yaml': 'values: demo-v1\nclients:\n  vendor:\n    base-url: "{{base}}"\n    timeouts: { connect: soon }\n',
  'routes/tests/typo.yaml': 'tests:\n  - name: a test\n    route: typo\n    requst: { body: {} }\n',
};

describe('the config validators the build carries as code', () => {
  it('cover every config of the whole project (routes, clients, tests, tools, engine settings): none is compiled at load', async () => {
    const lint = await freshEngine(true);
    expect(await lint(ROOT, 'sandbox')).toEqual([]);
    expect([...lookups.missing]).toEqual([]);
    expect(lookups.found.size).toBeGreaterThan(10);
  }, 60_000);

  it('report a broken project exactly as validators compiled at load do', async () => {
    const root = tmpProject({ 'values/demo-v1.values.yaml': VALUES, ...BROKEN });
    const compiled = await (await freshEngine(false))(root);
    const asCode = await freshEngine(true);
    const fromBuild = await asCode(root);
    expect(lookups.missing.size).toBe(0);
    expect(lookups.found.size).toBeGreaterThan(3);
    expect(compiled.length).toBeGreaterThanOrEqual(Object.keys(BROKEN).length);
    expect(fromBuild).toEqual(compiled);
  }, 60_000);

  it('an edited schema does not meet a stale validator: its key changes and it compiles at load', async () => {
    const { fullSchema, schemaKey } = await import('../../engine/dsl/config-check.ts');
    const { STEP_KINDS } = await import('../../engine/steps/registry.ts');
    const schema = STEP_KINDS.get('log')!.schema;
    expect(generated.has(schemaKey(fullSchema(schema)))).toBe(true);
    expect(generated.has(schemaKey(fullSchema({ ...schema, required: ['message', 'level'] })))).toBe(false);
  });
});
