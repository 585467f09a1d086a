// The editor schema (schemas/route.schema.json) checks a route as written, before {{placeholders}}
// resolve: it must accept every shipped route (engine lint does) and still type literal values.

import { describe, it, expect } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { editorDocs, ROOT } from './schema-files.ts';

const ajv = new Ajv2020({ allErrors: true, strict: false });
const compiled = new Map<string, ValidateFunction>();
const validator = (schema: string) => {
  if (!compiled.has(schema)) compiled.set(schema, ajv.compile(JSON.parse(readFileSync(schema, 'utf8'))));
  return compiled.get(schema)!;
};
const routeSchema = join(ROOT, 'schemas', 'route.schema.json');

function errorsOf(text: string, schema = routeSchema): string[] {
  if (!existsSync(schema)) return [`the modeline names ${schema}, which does not exist`];
  const v = validator(schema);
  if (v(parse(text))) return [];
  // the leaf errors: anyOf/oneOf only say that no branch matched
  return (v.errors ?? [])
    .filter((e) => !['anyOf', 'oneOf'].includes(e.keyword))
    .map((e) => `${e.instancePath} ${e.message}`);
}

const route = (step: string) => `id: demo
values: demo-v1
from:
  http:
    path: "{{prefix}}/demo"
steps:
${step}`;

describe('schemas/route.schema.json', () => {
  const docs = editorDocs();

  it('names a schema in every route and tools file', () => {
    const routeOrTools = docs.filter((d) => /^(from|tools):/m.test(d.text));
    expect(routeOrTools.length).toBeGreaterThan(25);
    expect(routeOrTools.filter((d) => !d.schema).map((d) => d.file)).toEqual([]);
  });

  it('accepts every shipped route, tools file and example as written (0 errors)', () => {
    const withSchema = docs.filter((d) => d.schema);
    const bad = withSchema
      .map((d) => ({ file: d.file, errors: errorsOf(d.text, d.schema) }))
      .filter((r) => r.errors.length);
    expect(bad).toEqual([]);
  });

  it('accepts a placeholder for a number, a flag, an enum, a pattern and list items', () => {
    expect(
      errorsOf(
        route(`  - to-http:
      method: "{{method}}"
      url: "{{base}}/x"
      connections: "{{connectionsPerRoute}}"
      accept-statuses: ["{{notFound}}", 409]
      timeouts: { connect: "{{connectTimeout}}", response: 15000 }
      retry: { enabled: "{{retryFlag}}", max-retries: "{{maximumRedeliveries}}", statuses: "{{retryStatuses}}" }
  - choice:
      when:
        - condition: "true"
          stop: "{{stopFlag}}"
          steps: []
`),
      ),
    ).toEqual([]);
  });

  it('still types literal values', () => {
    const bad = (yaml: string) => errorsOf(route(yaml));
    expect(bad('  - to-http: { url: x, retry: { max-retries: three } }\n')).not.toEqual([]);
    expect(bad('  - to-http: { url: x, retry: { enabled: maybe } }\n')).not.toEqual([]);
    expect(bad('  - to-http: { url: x, method: FETCH }\n')).not.toEqual([]);
    expect(bad('  - to-http: { url: x, connections: -1 }\n')).not.toEqual([]);
    // a number takes a whole placeholder, not text around one
    expect(bad('  - to-http: { url: x, connections: "2{{pool}}" }\n')).not.toEqual([]);
    expect(bad('  - choice: { when: [{ condition: "true", steps: [], stop: "yes" }] }\n')).not.toEqual([]);
    expect(errorsOf(route('  - log: { message: hi }\n').replace('"{{prefix}}/demo"', 'demo'))).toContain(
      '/from/http/path must match pattern "^/"',
    );
  });

  it('still refuses unknown keys, at any depth', () => {
    expect(errorsOf(route('  - to-http: { url: x, retry: { retires: 3 } }\n'))).toContain(
      '/steps/0/to-http/retry must NOT have additional properties',
    );
    expect(errorsOf(route('  - choice: { when: [{ condition: "true", steps: [], stpo: true }] }\n'))).toContain(
      '/steps/0/choice/when/0 must NOT have additional properties',
    );
  });
});
