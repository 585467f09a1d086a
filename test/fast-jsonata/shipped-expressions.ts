// Every JSONata expression the project ships, read as data (no engine code): the .jsonata files
// under transforms/ and routes/, and the JSONata-valued fields of the route and connector YAML
// (the fields engine/steps/*.ts compile with ctx.expr), with `{{placeholders}}` replaced by the
// values files' values (or a plausible stand-in); and the recorded inputs of the route tests
// (routes/**/tests/*.yaml: request bodies, headers, query strings, stub answers).

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse } from 'yaml';

const ROOT = join(import.meta.dirname, '../..');

export interface Shipped {
  /** file and YAML path, or file alone for a .jsonata file */
  where: string;
  source: string;
  /** the route folder whose tests give its inputs (undefined: every folder's) */
  folder?: string;
}

/** The JSONata fields of each step kind (engine/steps/*.ts); `*` is every value of a map. */
const STEP_FIELDS: Record<string, string[]> = {
  transform: ['expression'],
  validate: [],
  choice: [],
  set: ['values.*', 'response-headers.*'],
  'to-http': [
    'path-params.*',
    'query.*',
    'headers.*',
    'body',
    'idempotency-key',
    'error-code',
    'already-done.when',
    'already-done.answer',
  ],
  'to-direct': ['body'],
  'to-eventhub': ['id', 'subject', 'data'],
  fail: ['when', 'detail'],
  log: ['fields'],
  loop: ['while'],
  split: ['items'],
  dedupe: ['key'],
  'verify-signature': [],
};

/** Files below `dir` (relative to the root) whose name ends with `ext`. */
function files(dir: string, ext: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })) {
    const full = join(e.parentPath, e.name);
    if (e.isFile() && e.name.endsWith(ext)) out.push(relative(ROOT, full));
  }
  return out.sort();
}

/** Every values file's properties, flattened to dotted keys (the first file naming a key wins). */
function valueTable(): Map<string, unknown> {
  const table = new Map<string, unknown>();
  const flatten = (v: unknown, prefix: string) => {
    if (v && typeof v === 'object' && !Array.isArray(v))
      for (const [k, x] of Object.entries(v)) flatten(x, prefix ? `${prefix}.${k}` : k);
    if (prefix && !table.has(prefix)) table.set(prefix, v);
  };
  for (const f of files('values', '.yaml').filter((f) => !f.includes('environments')))
    flatten(parse(readFileSync(join(ROOT, f), 'utf8')), '');
  return table;
}

const VALUES = valueTable();

/**
 * `{{key}}` to the values files' value as text (innermost first: `{{a_{{direction}}_b}}`); an
 * environmental `${...}` value or an unknown key gets a plausible stand-in.
 */
function substitute(text: string, instance: Record<string, unknown> = {}): string {
  const innermost = /\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g;
  let out = text;
  for (let i = 0; i < 5 && innermost.test(out); i++) {
    out = out.replace(innermost, (_, key: string) => {
      const v = key in instance ? instance[key] : VALUES.get(key);
      if (v !== undefined && v !== null && typeof v !== 'object' && !String(v).startsWith('${')) return String(v);
      if (/number$/i.test(key)) return '011000015';
      if (/enable|disable|flag/i.test(key)) return 'false';
      if (/max|size|count|entries|timeout/i.test(key)) return '100';
      return 'x';
    });
  }
  return out;
}

function at(obj: unknown, dotted: string): [string, unknown][] {
  let level: [string, unknown][] = [['', obj]];
  for (const part of dotted.split('.')) {
    const next: [string, unknown][] = [];
    for (const [p, v] of level) {
      if (!v || typeof v !== 'object') continue;
      if (part === '*') for (const [k, x] of Object.entries(v)) next.push([`${p}.${k}`, x]);
      else if (part in v) next.push([`${p}.${part}`, (v as Record<string, unknown>)[part]]);
    }
    level = next;
  }
  return level;
}

/** The expressions of a list of steps, nested lists too; an unknown step kind throws (add its fields above). */
function stepExpressions(
  list: unknown,
  path: string,
  add: (path: string, source: unknown) => void,
  file: (path: string, name: unknown) => void,
): void {
  if (!Array.isArray(list)) return;
  list.forEach((step, i) => {
    const here = `${path}[${i}]`;
    if (!step || typeof step !== 'object') return;
    const s = step as Record<string, any>;
    if ('if' in s) add(`${here}.if`, s.if);
    const kinds = Object.keys(s).filter((k) => k !== 'if');
    for (const kind of kinds) {
      if (!(kind in STEP_FIELDS))
        throw new Error(`${here}: step kind '${kind}' is not in STEP_FIELDS: name its JSONata fields there`);
      const cfg = s[kind];
      if (kind === 'transform' && typeof cfg === 'string') file(`${here}.transform`, cfg);
      if (kind === 'transform' && cfg?.file) file(`${here}.transform.file`, cfg.file);
      for (const field of STEP_FIELDS[kind]) for (const [p, v] of at(cfg, field)) add(`${here}.${kind}${p}`, v);
      if (kind === 'validate') {
        (cfg?.rules ?? []).forEach((r: any, j: number) => {
          for (const f of ['assert', 'errors'])
            if (r?.[f] !== undefined) add(`${here}.validate.rules[${j}].${f}`, r[f]);
          if (r?.file) file(`${here}.validate.rules[${j}].file`, r.file);
        });
      }
      if (kind === 'choice') {
        (cfg?.when ?? []).forEach((b: any, j: number) => {
          add(`${here}.choice.when[${j}].condition`, b?.condition);
          stepExpressions(b?.steps, `${here}.choice.when[${j}].steps`, add, file);
        });
        stepExpressions(cfg?.otherwise, `${here}.choice.otherwise`, add, file);
      }
      if (kind === 'loop' || kind === 'split') stepExpressions(cfg?.steps, `${here}.${kind}.steps`, add, file);
    }
  });
}

/** Every shipped expression, once per route instance where the route has `instances:`. */
export function shippedExpressions(): Shipped[] {
  const out: Shipped[] = [];
  const byFile = new Map<string, Set<string>>();
  for (const f of files('routes', '.yaml').filter((f) => !f.includes('/tests/') && !f.includes('tools'))) {
    const doc = parse(readFileSync(join(ROOT, f), 'utf8')) as Record<string, any> | null;
    if (!doc || typeof doc !== 'object') continue;
    const folder = f.split('/')[1];
    const instances: Record<string, unknown>[] = Array.isArray(doc.instances) ? doc.instances : [{}];
    for (const instance of instances) {
      const tag = Object.keys(instance).length ? ` (${JSON.stringify(instance)})` : '';
      const add = (path: string, source: unknown) => {
        if (typeof source === 'string')
          out.push({ where: `${f}${tag}: ${path}`, source: substitute(source, instance), folder });
      };
      const file = (_path: string, name: unknown) => {
        if (typeof name === 'string' && name.endsWith('.jsonata')) {
          if (!byFile.has(name)) byFile.set(name, new Set());
          byFile.get(name)!.add(folder);
        }
      };
      stepExpressions(doc.steps, 'steps', add, file);
      (doc['on-exception'] ?? []).forEach((h: any, i: number) =>
        stepExpressions(h?.steps, `on-exception[${i}].steps`, add, file),
      );
      // a connector document's client profiles: header values are expressions
      for (const [name, client] of Object.entries(doc.clients ?? {}))
        for (const [p, v] of at(client, 'headers.*')) add(`clients.${name}${p}`, v);
    }
  }
  for (const f of [...files('transforms', '.jsonata'), ...files('routes', '.jsonata')]) {
    const text = readFileSync(join(ROOT, f), 'utf8');
    const folders = byFile.get(f) ?? new Set([undefined as unknown as string]);
    const directions: { direction?: string }[] = text.includes('{{direction}}')
      ? [{ direction: 'credit' }, { direction: 'debit' }]
      : [{}];
    for (const folder of folders)
      for (const d of directions)
        out.push({ where: f + (d.direction ? ` (${d.direction})` : ''), source: substitute(text, d), folder });
  }
  return out;
}

/** Lower-cased header names, as the engine gives them to expressions. */
const lower = (h: unknown) =>
  Object.fromEntries(Object.entries((h ?? {}) as Record<string, unknown>).map(([k, v]) => [k.toLowerCase(), v]));

/** The exchanges the route tests of each folder record: requests, and stub answers as a vendor's body. */
export function recordedInputs(): Map<string, unknown[]> {
  const out = new Map<string, unknown[]>();
  for (const f of files('routes', '.yaml').filter((f) => f.includes('/tests/'))) {
    const folder = f.split('/')[1];
    const doc = parse(readFileSync(join(ROOT, f), 'utf8'), { merge: true }) as Record<string, any> | null;
    const list = out.get(folder) ?? [];
    out.set(folder, list);
    for (const t of doc?.tests ?? []) {
      const req = t?.request ?? {};
      const url = new URL(String(req.path ?? '/'), 'http://x');
      const base = {
        body: req.body ?? {},
        headers: lower(req.headers),
        query: Object.fromEntries(url.searchParams),
        params: {},
        vars: {},
        status: 200,
        responseHeaders: {},
      };
      list.push(base);
      for (const stub of Object.values(t?.stubs ?? {})) {
        for (const answer of Array.isArray(stub) ? stub : [stub]) {
          const vendor = (answer as any)?.body;
          if (vendor === undefined) continue;
          list.push({
            ...base,
            body: vendor,
            vars: { vendor, order: req.body, lastStatus: (answer as any)?.status ?? 200 },
          });
          list.push({ ...base, vars: { vendor, lastStatus: (answer as any)?.status ?? 200 } });
        }
      }
    }
  }
  return out;
}
