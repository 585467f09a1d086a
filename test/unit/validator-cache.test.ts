// The validator cache (engine/schemas/validator-cache.ts): a schema a process compiled is served to
// a later process from ajv's standalone code, without a compile, and that validator says exactly
// what a compiled one says; never for another schema, never from a file it cannot trust, and a bad
// schema is said at its place every time.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chmodSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { setCacheFolder } from '../../engine/core/disk-cache.ts';
import { createAjv, SchemaProblemsError, SchemaStore } from '../../engine/schemas/schemas.ts';
import { writeValidatorCache } from '../../engine/schemas/validator-cache.ts';
import { fieldErrors } from '../../engine/schemas/field-errors.ts';
import type { DiagnosticError } from '../../engine/core/diagnostics.ts';

const ROOT = resolve(import.meta.dirname, '../..');

/** The project's schema files a route validates against (not the editor schemas of schemas/*.json). */
const SCHEMA_FILES = ['schemas', 'routes']
  .flatMap((d) => readdirSync(join(ROOT, d), { recursive: true }).map((f) => join(d, String(f))))
  .filter((f) => f.endsWith('.schema.json') && /\/(payments|batch-payments|payment-inbound|schemas)\//.test(f))
  .sort();

/** Every request and stub body of the project's route tests: real data for real schemas. */
function testBodies(): unknown[] {
  const out: unknown[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === 'object')
      for (const [k, x] of Object.entries(v)) {
        if (k === 'body' && x !== null && typeof x === 'object') out.push(x);
        walk(x);
      }
  };
  for (const d of readdirSync(join(ROOT, 'routes'), { recursive: true }).map(String))
    if (/\/tests\/[^/]+\.yaml$/.test(d)) walk(parse(readFileSync(join(ROOT, 'routes', d), 'utf8'), { merge: true }));
  return out;
}

/** `body` with one change at each place: a field dropped, or given another type or value. */
function mutations(body: unknown): unknown[] {
  const out: unknown[] = [];
  const swaps = [12345, '', 'x'.repeat(300), null, [], {}, 'not-a-value \u0000', -1.5];
  const visit = (v: unknown, set: (x: unknown) => unknown, drop?: () => unknown): void => {
    for (const s of swaps) out.push(set(s));
    if (drop) out.push(drop());
    if (Array.isArray(v))
      v.forEach((x, i) =>
        visit(
          x,
          (y) => set(v.map((z, j) => (j === i ? y : z))),
          () => set(v.filter((_, j) => j !== i)),
        ),
      );
    else if (v !== null && typeof v === 'object')
      for (const k of Object.keys(v))
        visit(
          (v as Record<string, unknown>)[k],
          (y) => set({ ...v, [k]: y }),
          () => set(Object.fromEntries(Object.entries(v).filter(([j]) => j !== k))),
        );
  };
  visit(body, (x) => x);
  return out;
}

/** ajv's compiles, counted (and the validators they gave) */
const compiles = { n: 0, last: undefined as ValidateFunction | undefined };
const compile = Ajv2020.prototype.compile;
Ajv2020.prototype.compile = function (this: Ajv2020, ...a: Parameters<typeof compile>) {
  compiles.n++;
  return (compiles.last = compile.apply(this, a));
} as typeof compile;

const dirs: string[] = [];
beforeEach(() => {
  compiles.n = 0;
});
afterEach(() => {
  setCacheFolder(undefined);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function folder(files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'validator-cache-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

/** A new process as far as the cache goes: what this one learnt is written, then read afresh. */
function nextProcess(cache: string): void {
  writeValidatorCache();
  setCacheFolder(cache);
}

/** What a validator says of `data`: valid, ajv's errors, the engine's field errors. */
function verdict(validate: ValidateFunction, data: unknown) {
  const valid = validate(data);
  return { valid, errors: validate.errors ?? null, fields: fieldErrors(validate.errors) };
}

/** The diagnostics a schema file gets, as text. */
function diagnostics(store: SchemaStore, file: string): string[] {
  try {
    store.compileFile(file, 'bad.schema.json');
  } catch (e) {
    return (e as DiagnosticError).diagnostics.map((d) => `${d.line}:${d.col} ${d.message}`);
  }
  return [];
}

describe('the validator cache', () => {
  it("serves every project schema to a later process without compiling, saying what ajv's compile says", () => {
    expect(SCHEMA_FILES.length).toBeGreaterThan(20);
    const cache = join(folder(), 'cache');
    setCacheFolder(cache);
    const first = new SchemaStore();
    for (const f of SCHEMA_FILES) first.compileFile(join(ROOT, f));
    expect(compiles.n).toBe(SCHEMA_FILES.length);
    nextProcess(cache);
    compiles.n = 0;
    const store = new SchemaStore();
    const kept = SCHEMA_FILES.map((f) => store.compileFile(join(ROOT, f)).validate);
    expect(compiles.n).toBe(0);
    // the same schemas compiled by an ajv as the store sets it up, the cache aside
    const ajv = createAjv({ strictSchema: true });
    const compiled = SCHEMA_FILES.map((f) => ajv.compile(JSON.parse(readFileSync(join(ROOT, f), 'utf8'))));
    const bodies = testBodies();
    expect(bodies.length).toBeGreaterThan(50);
    let valid = 0;
    let invalid = 0;
    const validFor = new Set<string>();
    SCHEMA_FILES.forEach((f, i) => {
      for (const body of [...bodies, {}, [], 'text', 0, null]) {
        const want = verdict(compiled[i], body);
        expect(verdict(kept[i], body), f).toEqual(want);
        if (!want.valid) continue;
        validFor.add(f);
        // a body this schema takes, changed at each place: every keyword's errors
        for (const m of mutations(body)) {
          const w = verdict(compiled[i], m);
          expect(verdict(kept[i], m), `${f} ${JSON.stringify(m).slice(0, 200)}`).toEqual(w);
          if (w.valid) valid++;
          else invalid++;
        }
      }
    });
    expect([...validFor]).toEqual(
      expect.arrayContaining([
        'routes/hubvendor-foreign-exchange/schemas/exchange-rate-request.schema.json',
        'schemas/payments/payment-order-request.schema.json',
        'schemas/batch-payments/batch-request.schema.json',
        'routes/screenvendor-screening/schemas/customer-screening-request.schema.json',
      ]),
    );
    expect(valid).toBeGreaterThan(100);
    expect(invalid).toBeGreaterThan(1000);
  }, 60_000);

  it('compiles a changed schema again, and never serves the code of another schema', () => {
    const schema = (max: number) =>
      JSON.stringify({ type: 'object', properties: { iban: { type: 'string', format: 'iban', maxLength: max } } });
    const dir = folder({ 's.schema.json': schema(40) });
    const cache = join(dir, 'cache');
    setCacheFolder(cache);
    new SchemaStore().compileFile(join(dir, 's.schema.json'));
    nextProcess(cache);
    writeFileSync(join(dir, 's.schema.json'), schema(10));
    compiles.n = 0;
    const { validate } = new SchemaStore().compileFile(join(dir, 's.schema.json'));
    expect(compiles.n).toBe(1);
    expect(verdict(validate, { iban: 'DE89370400440532013000' }).errors).toMatchObject([{ keyword: 'maxLength' }]);
    // the custom formats reach a kept validator too
    nextProcess(cache);
    compiles.n = 0;
    const again = new SchemaStore().compileFile(join(dir, 's.schema.json')).validate;
    expect(compiles.n).toBe(0);
    expect(verdict(again, { iban: 'DE89370400440532013001' }).errors).toMatchObject([
      { keyword: 'maxLength' },
      { keyword: 'format', params: { format: 'iban' } },
    ]);
  });

  it('keeps inline schemas, not those JSON would not give back exactly', () => {
    const cache = join(folder(), 'cache');
    const inline = () => ({ type: 'object', required: ['a'], properties: { a: { type: 'number', maximum: 5 } } });
    const infinite = () => ({ type: 'number', maximum: Infinity });
    setCacheFolder(cache);
    new SchemaStore().compileInline(inline());
    new SchemaStore().compileInline(infinite());
    nextProcess(cache);
    compiles.n = 0;
    const store = new SchemaStore();
    const { validate } = store.compileInline(inline());
    expect(compiles.n).toBe(0);
    expect(verdict(validate, { a: 6 }).errors).toMatchObject([{ instancePath: '/a', keyword: 'maximum' }]);
    expect(store.compileInline(infinite()).validate(1e300)).toBe(true);
    expect(compiles.n).toBe(1);
  });

  it('registers a kept schema with $id, so that a schema referring to it compiles', () => {
    const dir = folder({
      'money.schema.json': JSON.stringify({
        $id: 'urn:test:money',
        type: 'object',
        required: ['amount'],
        properties: { amount: { type: 'string', format: 'decimal-amount' } },
      }),
      'order.schema.json': JSON.stringify({ type: 'object', properties: { total: { $ref: 'urn:test:money' } } }),
    });
    const cache = join(dir, 'cache');
    setCacheFolder(cache);
    const first = new SchemaStore();
    first.compileFile(join(dir, 'money.schema.json'));
    first.compileFile(join(dir, 'order.schema.json'));
    nextProcess(cache);
    compiles.n = 0;
    const store = new SchemaStore();
    store.compileFile(join(dir, 'money.schema.json'));
    expect(compiles.n).toBe(0);
    // a schema naming another one is compiled every time (its code depends on that one too)
    const order = store.compileFile(join(dir, 'order.schema.json')).validate;
    expect(compiles.n).toBe(1);
    expect(verdict(order, { total: { amount: 'x' } }).errors).toMatchObject([
      { instancePath: '/total/amount', keyword: 'format' },
    ]);
  });

  it('says the problems of a bad schema, at their place, every time', () => {
    const bad = '{\n  "type": "object",\n  "properties": { "a": { "type": "strin" } },\n  "requird": ["a"]\n}\n';
    const dir = folder({ 'bad.schema.json': bad });
    const cache = join(dir, 'cache');
    setCacheFolder(cache);
    const first = diagnostics(new SchemaStore(), join(dir, 'bad.schema.json'));
    expect(first).toHaveLength(2);
    expect(first[0]).toMatch(/^3:\d+ 'strin' is not a JSON Schema type/);
    const inline = () => new SchemaStore().compileInline({ type: 'object', requird: ['a'] });
    expect(inline).toThrow(SchemaProblemsError);
    nextProcess(cache);
    expect(diagnostics(new SchemaStore(), join(dir, 'bad.schema.json'))).toEqual(first);
    expect(inline).toThrow(SchemaProblemsError);
  });

  it('reads nothing from a damaged file or one others could have written, and runs as before', () => {
    const dir = folder({ 's.schema.json': JSON.stringify({ type: 'string', maxLength: 3 }) });
    const cache = join(dir, 'cache');
    const file = join(cache, 'schema-validators.json');
    setCacheFolder(cache);
    new SchemaStore().compileFile(join(dir, 's.schema.json'));
    writeValidatorCache();
    const good = readFileSync(file, 'utf8');
    const [head, body] = [good.slice(0, good.indexOf('\n')), good.slice(good.indexOf('\n') + 1)];
    // code that would take anything, with a checksum that holds
    const poisoned = body.replace(/return errors === 0;/g, 'return true;');
    expect(poisoned).not.toBe(body);
    const sum = createHash('sha256').update(poisoned).digest('base64url');
    const served = (text: string, mode = 0o600) => {
      writeFileSync(file, text);
      chmodSync(file, mode);
      setCacheFolder(cache);
      compiles.n = 0;
      const { validate } = new SchemaStore().compileFile(join(dir, 's.schema.json'));
      expect(validate('abcd')).toBe(text !== good && compiles.n === 0);
      return compiles.n === 0;
    };
    expect(served(good)).toBe(true);
    // code changed without its checksum
    expect(served(`${head}\n${poisoned}`)).toBe(false);
    if (process.platform !== 'win32') {
      // a checksum that holds, in a file others may write
      expect(served(`${head.replace(/"sha256":"[^"]+"/, `"sha256":"${sum}"`)}\n${poisoned}`, 0o666)).toBe(false);
      chmodSync(cache, 0o777);
      expect(served(good)).toBe(false);
      chmodSync(cache, 0o700);
    }
    // another ajv wrote it
    expect(served(`${head.replace(/"parser":"ajv [^ ]+/, '"parser":"ajv 0.0.0')}\n${body}`)).toBe(false);
    expect(served(good)).toBe(true);
  });

  it('keeps nothing, and asks ajv for no source, with the cache off', () => {
    const dir = folder({ 's.schema.json': JSON.stringify({ type: 'string' }) });
    const store = new SchemaStore();
    store.compileFile(join(dir, 's.schema.json'));
    expect(store.ajv.opts.code.source).toBeUndefined();
    expect(compiles.last?.source).toBeUndefined();
    writeValidatorCache();
    expect(readdirSync(dir)).toEqual(['s.schema.json']);
  });
});
