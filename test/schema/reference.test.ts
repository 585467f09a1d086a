// docs/routes.md tells the truth: its generated part is what the schemas say today, every nested
// key of every step and source has a row with its type and meaning, and every kind has an example
// (a source's in docs/examples/sources, a step kind's in its file) that compiles.

import { describe, it, expect } from 'vitest';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { STEP_KINDS } from '../../engine/steps/registry.ts';
import { SOURCE_KINDS } from '../../engine/sources/registry.ts';
import { renderReference, referenceRows, exampleOf, BEGIN, END, EXAMPLES_DIR } from '../../engine/dsl/reference.ts';
import { lintProject } from '../../engine/engine.ts';
import { formatDiagnostic } from '../../engine/core/diagnostics.ts';
import { createLogger } from '../../engine/observability/logger.ts';
import { ROOT } from './schema-files.ts';

/** The made-up vendor of the step kinds' examples (to-http, transform, verify-signature). */
const ACME_VALUES = `acme:
  baseUrl: https://api.acme.example
  currencyMarket: '1'
  webhookSecret: \${acme-webhook-secret}
retryFlag: true
maximumRedeliveries: 3
redeliveryDelay: 200
retryStatuses: 429,502,503,504
backOffMultiplier: 2
`;

const kinds = [
  ...[...SOURCE_KINDS.values()].map((k) => ({ group: 'sources' as const, ...k })),
  ...[...STEP_KINDS.values()].map((k) => ({ group: 'steps' as const, ...k })),
];

/** Every key path of a schema, independently of the renderer: `a`, `a.b`, `a[].b`, `a.<name>.b`. */
function keyPaths(s: any, prefix = ''): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries<any>(s?.properties ?? {})) {
    out.push(`${prefix}${k}`);
    const walk = (x: any, p: string): string[] => {
      if (!x || typeof x !== 'object' || x.items?.$ref) return [];
      if (x.properties) return keyPaths(x, `${p}.`);
      if (x.type === 'array') return walk(x.items, `${p}[]`);
      if (x.additionalProperties && typeof x.additionalProperties === 'object')
        return walk(x.additionalProperties, `${p}.<name>`);
      return [...(x.anyOf ?? []), ...(x.oneOf ?? [])].flatMap((b: any) => walk(b, p));
    };
    out.push(...walk(v, `${prefix}${k}`));
  }
  return out;
}

describe('docs/routes.md', () => {
  const doc = readFileSync(join(ROOT, 'docs', 'routes.md'), 'utf8');

  it('holds the reference generated from the schemas of today (npm run schema)', () => {
    const generated = doc.slice(doc.indexOf(BEGIN), doc.indexOf(END) + END.length);
    expect(generated).toBe(renderReference(join(ROOT, EXAMPLES_DIR)).replaceAll(`${ROOT}/`, ''));
  });

  it('has a row with a type for every nested key of every source and step', () => {
    for (const k of kinds) {
      const rows = referenceRows(k.schema);
      expect(
        rows.map((r) => r.key),
        k.kind,
      ).toEqual(keyPaths(k.schema));
      for (const r of rows) expect(r.type, `${k.kind}.${r.key}`).not.toBe('');
    }
    const choice = referenceRows(STEP_KINDS.get('choice')!.schema).map((r) => r.key);
    expect(choice).toEqual(expect.arrayContaining(['when[].condition', 'when[].steps', 'when[].stop']));
    const validate = referenceRows(STEP_KINDS.get('validate')!.schema).map((r) => r.key);
    expect(validate).toEqual(
      expect.arrayContaining(['rules[].assert', 'rules[].errors', 'rules[].field', 'rules[].message']),
    );
    expect(doc).toContain('| `when[].condition` (required) | string |');
  });

  it('describes every nested key of every source and step', () => {
    const missing = kinds.flatMap((k) =>
      referenceRows(k.schema)
        .filter((r) => !r.description)
        .map((r) => `${k.kind}: ${r.key}`),
    );
    expect(missing).toEqual([]);
  });

  it('shows one example per source and step kind, each using its kind', () => {
    for (const k of kinds) {
      const text = exampleOf(join(ROOT, EXAMPLES_DIR), k.group, k.kind);
      const where =
        k.group === 'steps' ? `example of step kind ${k.kind}` : `${EXAMPLES_DIR}/${k.group}/${k.kind}.yaml`;
      expect(text, where).toBeDefined();
      const route = parse(text!);
      if (k.group === 'sources') expect(Object.keys(route.from)).toEqual([k.kind]);
      else expect(JSON.stringify(route.steps)).toContain(`"${k.kind}":`);
      expect(doc).toContain(text!);
    }
  });

  it('examples compile: engine lint finds nothing in them', async () => {
    // a step kind's example lives in its file: linted as a route file of its own, beside the sources',
    // in a copy of the project that also holds the made-up vendor `acme` the engine's examples name
    // (the engine names none of ours: test/engine/no-vendor.test.ts)
    const dir = mkdtempSync(join(tmpdir(), 'step-examples-'));
    try {
      for (const d of ['values', 'transforms', 'schemas', EXAMPLES_DIR])
        cpSync(join(ROOT, d), join(dir, d), { recursive: true });
      writeFileSync(join(dir, 'values', 'acme.values.yaml'), ACME_VALUES);
      mkdirSync(join(dir, 'transforms', 'acme'));
      writeFileSync(
        join(dir, 'transforms', 'acme', 'exchange-rate.jsonata'),
        "{ 'buyRate': vars.rate.rate, 'sellRate': vars.rate.rate }\n",
      );
      mkdirSync(join(dir, 'steps'));
      for (const k of STEP_KINDS.values()) writeFileSync(join(dir, 'steps', `${k.kind}.yaml`), k.example);
      const diags = await lintProject({
        routes: [EXAMPLES_DIR, 'steps'],
        root: dir,
        logger: createLogger('silent'),
        processEnv: {},
      });
      expect(diags.map(formatDiagnostic)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
