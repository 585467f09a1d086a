// The build carries validators as ajv standalone code (engine/cli/precompile.ts, put in place of
// engine/schemas/precompiled.ts by build/bundle.mjs), so that a start loads them instead of
// compiling schemas: those of the engine's own config schemas, which must cover every config a
// project has and report a broken route as validators compiled at load do, and the JSON Schema
// meta-schema's, which must judge a project's schema files as ajv's own compile of it does.

import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { ValidateFunction } from 'ajv';
import { standaloneModule } from '../../engine/cli/precompile.ts';
import { tmpProject } from '../helpers/tmp-project.ts';

// what the engine finds in place of the build's module: the generated validators or none
const lookups = vi.hoisted(() => ({
  validators: new Map<string, unknown>(),
  meta: undefined as unknown,
  found: new Set<string>(),
  missing: new Set<string>(),
}));
vi.mock('../../engine/schemas/precompiled.ts', () => ({
  configValidators: {
    get size() {
      return lookups.validators.size;
    },
    get(key: string) {
      (lookups.validators.has(key) ? lookups.found : lookups.missing).add(key);
      return lookups.validators.get(key);
    },
  },
  get metaSchemaValidator() {
    return lookups.meta;
  },
}));

const ROOT = resolve(import.meta.dirname, '../..');
let generated: { configValidators: Map<string, ValidateFunction>; metaSchemaValidator: ValidateFunction };

beforeAll(async () => {
  // the generated code calls require() for ajv's runtime helpers (the bundle resolves them)
  const file = join(mkdtempSync(join(tmpdir(), 'engine-validators-')), 'validators.mjs');
  writeFileSync(
    file,
    `import { createRequire } from 'node:module';\nconst require = createRequire(${JSON.stringify(join(ROOT, 'package.json'))});\n${standaloneModule()}`,
  );
  generated = await import(pathToFileURL(file).href);
}, 60_000);

/** A fresh engine (config-check.ts keeps what it compiled) with or without the generated validators. */
async function freshEngine(withGenerated: boolean) {
  lookups.validators = withGenerated ? generated.configValidators : new Map();
  lookups.meta = withGenerated ? generated.metaSchemaValidator : undefined;
  lookups.found.clear();
  lookups.missing.clear();
  vi.resetModules();
  const { lintProject } = await import('../../engine/engine.ts');
  const { loadExtensions } = await import('../../engine/cli/extensions.ts');
  const { sandboxExtension } = await import('../../sandbox/extension.ts');
  const { createLogger } = await import('../../engine/observability/logger.ts');
  const { formatDiagnostic } = await import('../../engine/core/diagnostics.ts');
  return async (root: string, env?: string) => {
    const extensions = await loadExtensions([sandboxExtension()], ['node', 'engine', 'lint']);
    const diags = await lintProject({
      routes: ['routes'],
      root,
      env,
      extensions,
      logger: createLogger('silent'),
      processEnv: {},
    });
    return diags.map((d) => formatDiagnostic({ ...d, file: d.file.replace(/^.*routes\//, 'routes/') }));
  };
}

const VALUES = 'base: ${demo-base-url}\n';
/** Routes with one mistake each, of the kinds config-check reports differently. */
const BROKEN: Record<string, string> = {
  'routes/typo.yaml':
    'id: typo\nvalues: demo-v1\nfrom:\n  http: { method: POST, path: /a }\nsteps:\n  - to-http:\n      method: GET\n      url: "{{base}}/x/{ref}"\n      path-param: { ref: params.ref }\n',
  'routes/missing.yaml':
    'id: missing\nvalues: demo-v1\nfrom:\n  http: { method: POST }\nsteps:\n  - log: { message: "\'hi\'" }\n',
  'routes/enum.yaml':
    'id: enum\nvalues: demo-v1\nfrom:\n  http: { method: PSOT, path: /b }\nsteps:\n  - log: { message: "\'hi\'", level: loud }\n',
  'routes/types.yaml':
    'id: types\nvalues: demo-v1\nfrom:\n  http: { method: POST, path: /c }\nsteps:\n  - to-http:\n      method: GET\n      url: "{{base}}/y"\n      retry: { maximumRetries: many, enabled: 3 }\n',
  'routes/handler.yaml':
    'id: handler\nvalues: demo-v1\nfrom:\n  http: { method: POST, path: /d }\nsteps:\n  - log: { message: "\'hi\'" }\non-exception:\n  - when: [oops]\n    status: nine\n',
  'routes/connector.yaml':
    'values: demo-v1\nclients:\n  vendor:\n    base-url: "{{base}}"\n    timeouts: { connect: soon }\n',
  'routes/tests/typo.yaml': 'tests:\n  - name: a test\n    route: typo\n    requst: { body: {} }\n',
};

describe('the validators the build carries as code', () => {
  it('of the config schemas cover every config of the whole project (routes, clients, tests, tools, engine settings): none is compiled at load', async () => {
    const lint = await freshEngine(true);
    expect(await lint(ROOT, 'sandbox')).toEqual([]);
    expect([...lookups.missing]).toEqual([]);
    expect(lookups.found.size).toBeGreaterThan(10);
  }, 60_000);

  it('of the config schemas report a broken project exactly as validators compiled at load do', async () => {
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
    const { fullSchema, schemaKey } = await import('../../engine/schemas/config-check.ts');
    const { STEP_KINDS } = await import('../../engine/steps/registry.ts');
    const schema = STEP_KINDS.get('log')!.schema;
    expect(generated.configValidators.has(schemaKey(fullSchema(schema)))).toBe(true);
    expect(generated.configValidators.has(schemaKey(fullSchema({ ...schema, required: ['message', 'level'] })))).toBe(
      false,
    );
  });

  it("of the meta-schema judge the project's schema files and broken ones as ajv's compile of it does, and ajv compiles it no more", async () => {
    const files = readdirSync(join(ROOT, 'schemas'), { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('.schema.json'));
    const schemas: unknown[] = files.map((f) => JSON.parse(readFileSync(join(ROOT, 'schemas', f), 'utf8')));
    expect(schemas.length).toBeGreaterThan(10);
    schemas.push(
      { type: 'strin' },
      { type: 'object', properties: { a: { type: 'string', minLength: -1 } }, required: 'a' },
      { $defs: { x: { enum: 'A' } }, items: [{ type: 'string' }], anyOf: [] },
      { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object' },
      { $schema: 42 },
    );
    const judge = async (withGenerated: boolean) => {
      lookups.meta = withGenerated ? generated.metaSchemaValidator : undefined;
      vi.resetModules();
      const { SchemaStore, META_SCHEMA_ID } = await import('../../engine/schemas/schemas.ts');
      const store = new SchemaStore();
      const verdicts = schemas.map((s) => {
        try {
          store.compileInline(structuredClone(s) as Record<string, unknown>);
          return 'ok';
        } catch (e) {
          return (e as Error).message;
        }
      });
      return {
        verdicts,
        meta: (store.ajv as unknown as { schemas: Record<string, { validate?: unknown }> }).schemas[META_SCHEMA_ID]
          .validate,
      };
    };
    const compiled = await judge(false);
    const asCode = await judge(true);
    expect(compiled.verdicts.filter((v) => v !== 'ok').length).toBe(5);
    expect(asCode.verdicts).toEqual(compiled.verdicts);
    expect(asCode.meta).toBe(generated.metaSchemaValidator);
  }, 60_000);
});
