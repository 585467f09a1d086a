// The DSL reference (docs/routes.md, between markers) rendered from the same schemas that lint
// uses, so the docs cannot drift from the engine. Every nested key gets a row (`retry.delay`,
// `when[].condition`), so a key added to any schema shows up without touching this file; each
// step kind's example is the one in its file (StepKind `example`).

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { STEP_KINDS } from '../steps/registry.ts';
import { SOURCE_KINDS } from '../sources/registry.ts';
import { ROUTE_KEYS, HANDLER_SCHEMA } from './route-schema.ts';
import { spellsScalar } from './placeholder-schema.ts';

export const BEGIN = '<!-- BEGIN GENERATED REFERENCE (engine schema) -->';
export const END = '<!-- END GENERATED REFERENCE -->';

/** Where the per-kind examples of sources live: `<dir>/sources/<kind>.yaml` (a step kind's is its `example`). */
export const EXAMPLES_DIR = 'docs/examples';

type Schema = Record<string, any>;

export interface ReferenceRow {
  /** dotted path from the config object: `retry.delay`, `when[].condition`, `values.<name>` */
  key: string;
  required: boolean;
  type: string;
  default?: unknown;
  description: string;
}

const isStepList = (s: Schema | undefined) => s?.type === 'array' && s.items?.$ref === '#/$defs/step';

function typeOf(s: Schema | undefined): string {
  if (!s) return 'any';
  if (s.enum) return s.enum.map((v: unknown) => `\`${String(v)}\``).join(' \\| ');
  if (s.const !== undefined) return `\`${String(s.const)}\``;
  if (s.$ref === '#/$defs/step') return 'step';
  const alts = s.anyOf ?? s.oneOf;
  if (alts) return [...new Set(alts.filter((b: Schema) => !spellsScalar(b, alts)).map(typeOf))].join(' or ');
  if (Array.isArray(s.type)) return s.type.join(' or ');
  if (s.type === 'array') return isStepList(s) ? 'list of steps' : `list of ${typeOf(s.items)}`;
  if (s.type === 'object' && s.additionalProperties && typeof s.additionalProperties === 'object')
    return `map of ${typeOf(s.additionalProperties)}`;
  return s.type ?? 'any';
}

/** The object schemas a value may be (directly, as list items, as map values, in an anyOf). */
function nested(s: Schema): { suffix: string; schema: Schema }[] {
  if (!s || typeof s !== 'object' || isStepList(s)) return [];
  if (s.properties) return [{ suffix: '', schema: s }];
  if (s.type === 'array' && s.items) return nested(s.items).map((n) => ({ ...n, suffix: `[]${n.suffix}` }));
  if (s.additionalProperties && typeof s.additionalProperties === 'object')
    return nested(s.additionalProperties).map((n) => ({ ...n, suffix: `.<name>${n.suffix}` }));
  return (s.anyOf ?? s.oneOf ?? []).flatMap(nested);
}

/** Which of the keys are required together ("exactly one of `expression`, `file`"). */
function alternatives(s: Schema): string {
  const alts: Schema[] | undefined = s.oneOf ?? s.anyOf;
  if (!alts || !alts.every((a) => a.required && Object.keys(a).length === 1)) return '';
  const keys = alts.map((a) => a.required.map((k: string) => `\`${k}\``).join(' + '));
  return `${s.oneOf ? 'Exactly one' : 'At least one'} of ${keys.join(', ')} is required.`;
}

/** Every key of a config schema, depth first, with its type, default and description. */
export function referenceRows(schema: Schema, prefix = ''): ReferenceRow[] {
  const req = new Set<string>(schema.required ?? []);
  const out: ReferenceRow[] = [];
  for (const [k, s] of Object.entries<Schema>(schema.properties ?? {})) {
    const key = `${prefix}${k}`;
    const examples = Array.isArray(s.examples)
      ? ` E.g. ${s.examples.map((e: unknown) => `\`${typeof e === 'string' ? e : JSON.stringify(e)}\``).join(', ')}.`
      : '';
    const note = alternatives(s);
    out.push({
      key,
      required: req.has(k),
      type: typeOf(s),
      default: s.default,
      description: `${s.description ?? ''}${examples}${note ? ` ${note}` : ''}`.trim(),
    });
    for (const n of nested(s)) out.push(...referenceRows(n.schema, `${key}${n.suffix}.`));
  }
  return out;
}

const cell = (t: string) => t.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function table(schema: Schema): string {
  const rows = referenceRows(schema);
  if (!rows.length) return '_No configuration._\n';
  const note = alternatives(schema);
  const lines = rows.map(
    (r) =>
      `| \`${r.key}\`${r.required ? ' (required)' : ''} | ${r.type} | ${r.default !== undefined ? `\`${JSON.stringify(r.default)}\`` : ''} | ${cell(r.description)} |`,
  );
  return (
    [...(note ? [note, ''] : []), '| key | type | default | meaning |', '|---|---|---|---|', ...lines].join('\n') + '\n'
  );
}

/** The example of a kind without its editor modeline, or nothing: a source's file, a step kind's own. */
export function exampleOf(dir: string, group: 'steps' | 'sources', kind: string): string | undefined {
  if (group === 'steps') return STEP_KINDS.get(kind)?.example.trimEnd();
  const file = join(dir, group, `${kind}.yaml`);
  if (!existsSync(file)) return undefined;
  return readFileSync(file, 'utf8')
    .replace(/^# yaml-language-server:.*\n/, '')
    .trimEnd();
}

function section(
  group: 'steps' | 'sources',
  k: { kind: string; description: string; schema: Schema; shorthand?: string },
  dir: string,
): string[] {
  const ex = exampleOf(dir, group, k.kind);
  const from = group === 'sources' ? '`' + join(dir, group, `${k.kind}.yaml`) + '`, ' : '';
  const example = ex ? [`Example (${from}compiled by the tests):`, '', '```yaml', ex, '```', ''] : [];
  const short = k.shorthand
    ? [
        `A string in place of the mapping stands for \`${k.shorthand}\`: \`${k.kind}: <${k.shorthand}>\` is \`${k.kind}: { ${k.shorthand}: <${k.shorthand}> }\`.`,
        '',
      ]
    : [];
  return [`#### \`${k.kind}\``, '', k.description, '', ...short, table(k.schema), ...example];
}

export function renderReference(examplesDir = EXAMPLES_DIR): string {
  const route = {
    type: 'object',
    required: ['id', 'from'],
    properties: { ...ROUTE_KEYS, 'on-exception': { ...ROUTE_KEYS['on-exception'], items: HANDLER_SCHEMA } },
  };
  const out: string[] = [BEGIN, '', '### Route file', '', table(route)];
  out.push('### Sources (`from`)', '');
  for (const k of SOURCE_KINDS.values()) out.push(...section('sources', k, examplesDir));
  out.push(
    '### Steps',
    '',
    'Any step may carry `if: <JSONata>` beside its kind: it then runs only when the condition is truthy, as the one branch of a `choice` without `otherwise` would (the console draws it as one).',
    '',
    '```yaml',
    '- if: "$exists(headers.\'idempotency-key\')"',
    '  validate:',
    '    rules:',
    '      - assert: "$length(headers.\'idempotency-key\') <= 64"',
    '        field: /headers/idempotency-key',
    '        message: must be at most 64 characters',
    '```',
    '',
  );
  for (const k of STEP_KINDS.values()) out.push(...section('steps', k, examplesDir));
  out.push(END);
  return out.join('\n');
}

/** Replaces the generated part of a document. */
export function updateDoc(text: string, examplesDir = EXAMPLES_DIR): string {
  const a = text.indexOf(BEGIN);
  const b = text.indexOf(END);
  if (a < 0 || b < 0) return `${text.trimEnd()}\n\n${renderReference(examplesDir)}\n`;
  return text.slice(0, a) + renderReference(examplesDir) + text.slice(b + END.length);
}
