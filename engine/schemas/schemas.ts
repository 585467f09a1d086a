// One Ajv (JSON Schema 2020-12, ajv-formats, banking formats) shared by all routes; schema files
// compiled once and cached by path, strictly: an unknown keyword is an error, said at its line by
// schema-check.ts. Beside the schema, one text rule holds for every string a validate step checks
// (see unsafeTextErrors): no schema has to repeat it.

import { readFileSync } from 'node:fs';
import { _, Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { FieldError } from '../core/errors.ts';
import { DiagnosticError } from '../core/diagnostics.ts';
import {
  jsonSyntaxDiagnostic,
  parseJson,
  schemaFileDiagnostics,
  schemaProblems,
  type SchemaProblem,
} from './schema-check.ts';
import { metaSchemaValidator } from './precompiled.ts';
import { compileKept, FORMATS_MODULE, keptValidator } from './validator-cache.ts';
import { abaValid, bicValid, currencyValid, ibanValid, amountValid, notPast } from '../core/functions.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/** Schema keyword that lets a field (and everything below it) carry the characters the text rule refuses. */
const RAW_TEXT_KEYWORD = 'x-raw-text';

/**
 * What no text field may carry: control characters (Cc: a NUL truncates, a CR/LF breaks or injects
 * records of line-based vendor formats), format characters (Cf: zero-width spaces and joiners, the
 * BOM and soft hyphen are invisible and split a name so screening no longer matches it; every bidi
 * control, U+061C, U+200E/F, U+202A-E, U+2066-9, is one too and makes a name display as another),
 * line and paragraph separators (Zl, Zp: line breaks to some parsers) and unpaired surrogates (Cs:
 * not text; with the u flag a well-formed pair is one code point and does not match).
 * The property escapes cost what the former list of ranges did (scratch benchmark, CPU time of a
 * SEPA payment order: 0.81-0.85 vs 0.85-0.88 µs for its 38 strings and keys; with the schema
 * validation 7.5-7.6 vs 7.5-8.0 µs).
 */
const UNSAFE_TEXT = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u;

const UNSAFE_TEXT_MESSAGE =
  'must not contain control, invisible or bidirectional formatting characters, line separators or unpaired surrogates';

/**
 * Object keys found to keep the text rule. Bodies repeat a few names (a 5,000-entry batch: ten
 * names 50,000 times), and a set look-up costs a third of the test. Process-wide and bounded: what
 * a key's text is decides, nothing else.
 */
const SAFE_KEYS = new Set<string>();
const SAFE_KEYS_MAX = 4096;

function unsafeKey(k: string): boolean {
  if (SAFE_KEYS.has(k)) return false;
  if (UNSAFE_TEXT.test(k)) return true;
  if (SAFE_KEYS.size < SAFE_KEYS_MAX) SAFE_KEYS.add(k);
  return false;
}

/** True when a string or object key anywhere in `value` breaks the text rule (no allocation per string). */
export function hasUnsafeText(value: unknown): boolean {
  if (typeof value === 'string') return UNSAFE_TEXT.test(value);
  if (value === null || typeof value !== 'object') return false;
  // an explicit stack: the value may come from a source without a JSON depth limit
  const stack: object[] = [value];
  while (stack.length > 0) {
    const v = stack.pop() as any;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const x = v[i];
        if (typeof x === 'string') {
          if (UNSAFE_TEXT.test(x)) return true;
        } else if (x !== null && typeof x === 'object') stack.push(x);
      }
    } else {
      for (const k in v) {
        if (unsafeKey(k)) return true;
        const x = v[k];
        if (typeof x === 'string') {
          if (UNSAFE_TEXT.test(x)) return true;
        } else if (x !== null && typeof x === 'object') stack.push(x);
      }
    }
  }
  return false;
}

/** A path as a linked list from the leaf, so walking a deep value does not copy paths. */
interface PathNode {
  key: string;
  parent: PathNode | undefined;
}

function segments(node: PathNode | undefined): string[] {
  const out: string[] = [];
  for (let n = node; n; n = n.parent) out.push(n.key);
  return out.reverse();
}

/** The path segments of every string or key breaking the text rule. */
function unsafeTextPaths(value: unknown): string[][] {
  const found: string[][] = [];
  const stack: [unknown, PathNode | undefined][] = [[value, undefined]];
  while (stack.length > 0) {
    const [v, at] = stack.pop()!;
    if (typeof v === 'string') {
      if (UNSAFE_TEXT.test(v)) found.push(segments(at));
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], { key: String(i), parent: at }]);
    } else if (v !== null && typeof v === 'object') {
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) {
        const node = { key: keys[i], parent: at };
        if (UNSAFE_TEXT.test(keys[i])) found.push(segments(node));
        else stack.push([(v as Record<string, unknown>)[keys[i]], node]);
      }
    }
  }
  return found;
}

const pointer = (path: string[]): string => path.map((p) => '/' + p.replace(/~/g, '~0').replace(/\//g, '~1')).join('');

/**
 * `validateSchema: false` for the engine's own schemas (step and source configs): they are checked
 * by tests, and checking them against the 2020-12 meta-schema costs a compile of that meta-schema
 * at every start. Schema files of a project are always checked.
 */
export function createAjv(o: { validateSchema?: boolean; standalone?: boolean; strictSchema?: boolean } = {}): Ajv2020 {
  const ajv = new Ajv2020({
    allErrors: true,
    strict: false,
    // a project's schemas: an unknown keyword or an ignored one (`then` without `if`) is an error
    // (schema-check.ts says the common ones in words, at their place, first)
    strictSchema: o.strictSchema ?? false,
    useDefaults: false,
    coerceTypes: false,
    validateSchema: o.validateSchema ?? true,
    // standalone: keeps each validator's source, for code written at build time (cli/precompile.ts).
    // Otherwise no optimizing pass over the generated code: it took 40 % of compiling every shipped
    // route's schema files at start-up (quadratic name counting) and V8 drops the same dead code anyway
    // (validation measured as fast: scratch benchmark of the payment-order schema, 0.37-0.51 µs both ways)
    // (the formats' name in a validator's standalone code: validator-cache.ts gives them its own)
    code: o.standalone ? { source: true, esm: true } : { optimize: false, formats: _`require(${FORMATS_MODULE})` },
  });
  addFormats(ajv);
  ajv.addFormat('iso4217', { type: 'string', validate: currencyValid });
  ajv.addFormat('iban', { type: 'string', validate: ibanValid });
  ajv.addFormat('bic', { type: 'string', validate: bicValid });
  ajv.addFormat('aba-routing', { type: 'string', validate: abaValid });
  ajv.addFormat('decimal-amount', { type: 'string', validate: (s: string) => amountValid(s) });
  ajv.addFormat('not-past-date', { type: 'string', validate: notPast });
  // NACHA alphanumeric fields: ASCII above 0x1F (printable ASCII); anything else breaks the fixed-width record
  ajv.addFormat('nacha-alphanumeric', { type: 'string', validate: /^[\x20-\x7e]*$/ });
  ajv.addKeyword({ keyword: RAW_TEXT_KEYWORD, schemaType: 'boolean' });
  // the message of a field's error in place of ajv's (field-errors.ts), as ajv-errors spells it
  ajv.addKeyword({ keyword: 'errorMessage', schemaType: 'string' });
  return ajv;
}

/** The meta-schema a schema file without `$schema` is checked against. */
export const META_SCHEMA_ID = 'https://json-schema.org/draft/2020-12/schema';

/**
 * The build's meta-schema validator (schemas/precompiled.ts) in place of the one ajv compiles
 * for the first schema file of a project: ajv checks schema files as before, without that compile.
 */
function withPrecompiledMetaSchema(ajv: Ajv2020): Ajv2020 {
  const env = (ajv as unknown as { schemas: Record<string, { validate?: ValidateFunction } | undefined> }).schemas[
    META_SCHEMA_ID
  ];
  if (metaSchemaValidator && env) env.validate = metaSchemaValidator;
  return ajv;
}

/** An inline schema's problems (schema-check.ts), for the caller to say at the route's lines. */
export class SchemaProblemsError extends Error {
  constructor(readonly problems: SchemaProblem[]) {
    super(problems.map((p) => p.message).join('; '));
    this.name = 'SchemaProblemsError';
  }
}

export class SchemaStore {
  readonly ajv = withPrecompiledMetaSchema(createAjv({ strictSchema: true }));
  private byFile = new Map<string, { validate: ValidateFunction; schema: Record<string, unknown> }>();

  /**
   * The validator of a schema file. Invalid JSON, an unknown keyword or a value the meta-schema
   * refuses throws a DiagnosticError at the file's line and column: `shown` is the file's name
   * in it, `context` is appended (which route names the file).
   */
  compileFile(
    file: string,
    shown = file,
    context = '',
  ): { validate: ValidateFunction; schema: Record<string, unknown> } {
    let c = this.byFile.get(file);
    if (!c) {
      const text = readFileSync(file, 'utf8');
      const parsed = parseJson(text);
      if (!('value' in parsed))
        throw new DiagnosticError([jsonSyntaxDiagnostic(shown, text, parsed.offset, parsed.message, context)]);
      const schema = parsed.value as Record<string, unknown>;
      // checked every time, kept code or not: a later engine's checks hold for an unchanged schema too
      const problems = schemaProblems(this.ajv, schema);
      if (problems.length) throw new DiagnosticError(schemaFileDiagnostics(shown, text, problems, context));
      // what a former process compiled from this very text, else compiled ($id lets schemas $ref
      // each other; the file path is the fallback id)
      const validate =
        keptValidator(this.ajv, schema) ??
        (schema.$id && this.ajv.getSchema(String(schema.$id))
          ? this.ajv.getSchema(String(schema.$id))!
          : compileKept(this.ajv, schema));
      c = { validate, schema };
      this.byFile.set(file, c);
    }
    return c;
  }

  /** The validator of an inline schema; its problems throw a SchemaProblemsError. */
  compileInline(schema: Record<string, unknown>): { validate: ValidateFunction; schema: Record<string, unknown> } {
    const problems = schemaProblems(this.ajv, schema);
    if (problems.length) throw new SchemaProblemsError(problems);
    return { validate: keptValidator(this.ajv, schema) ?? compileKept(this.ajv, schema), schema };
  }

  /**
   * The text rule for data validated against `schema`: one error per string (or key) with a
   * refused character, unless the schema marks that field or a parent with `x-raw-text: true`.
   * Clean data (the normal case) costs one regular expression test per string and key.
   */
  unsafeTextErrors(data: unknown, schema: Record<string, unknown>, prefix = ''): FieldError[] | undefined {
    if (!hasUnsafeText(data)) return undefined;
    const errors: FieldError[] = [];
    for (const path of unsafeTextPaths(data)) {
      if (!this.rawTextAt(schema, path))
        errors.push({ field: prefix + pointer(path) || '/', message: UNSAFE_TEXT_MESSAGE });
    }
    return errors.length > 0 ? errors : undefined;
  }

  /** True when a subschema that applies at `path` (or above it) says `x-raw-text: true`. */
  private rawTextAt(root: Record<string, unknown>, path: string[]): boolean {
    let current: Applied[] = [[root, root]];
    for (let depth = 0; ; depth++) {
      const applied = this.applicators(current);
      if (applied.some(([s]) => s[RAW_TEXT_KEYWORD] === true)) return true;
      if (depth === path.length || applied.length === 0) return false;
      const seg = path[depth];
      const next: Applied[] = [];
      for (const [s, res] of applied) {
        const props = s.properties as Record<string, unknown> | undefined;
        let named = !!props && Object.prototype.hasOwnProperty.call(props, seg);
        if (named) next.push([props![seg] as Schema, res]);
        for (const [re, sub] of Object.entries((s.patternProperties ?? {}) as Record<string, Schema>)) {
          if (new RegExp(re, 'u').test(seg)) {
            next.push([sub, res]);
            named = true;
          }
        }
        if (!named && isSchema(s.additionalProperties)) next.push([s.additionalProperties, res]);
        if (/^\d+$/.test(seg)) {
          const prefixItems = Array.isArray(s.prefixItems) ? (s.prefixItems as Schema[]) : [];
          if (Number(seg) < prefixItems.length) next.push([prefixItems[Number(seg)], res]);
          else if (isSchema(s.items)) next.push([s.items, res]);
        }
      }
      current = next;
    }
  }

  /** The subschemas that apply along with these: through $ref, allOf/anyOf/oneOf and if/then/else. */
  private applicators(start: Applied[]): Applied[] {
    const out: Applied[] = [];
    const seen = new Set<Schema>();
    const queue = [...start];
    while (queue.length > 0 && out.length < 1000) {
      const [s, resource] = queue.shift()!;
      if (!isSchema(s) || seen.has(s)) continue;
      seen.add(s);
      out.push([s, resource]);
      const res = typeof s.$id === 'string' ? s : resource;
      for (const k of ['allOf', 'anyOf', 'oneOf'])
        if (Array.isArray(s[k])) for (const x of s[k] as Schema[]) queue.push([x, res]);
      for (const k of ['if', 'then', 'else']) if (isSchema(s[k])) queue.push([s[k] as Schema, res]);
      if (typeof s.$ref === 'string') {
        const target = this.resolveRef(s.$ref, res);
        if (target) queue.push(target);
      }
    }
    return out;
  }

  private resolveRef(ref: string, resource: Schema): Applied | undefined {
    const hash = ref.indexOf('#');
    const base = hash < 0 ? ref : ref.slice(0, hash);
    const fragment = hash < 0 ? '' : ref.slice(hash + 1);
    let res = resource;
    if (base) {
      const other = this.ajv.getSchema(base)?.schema;
      if (!isSchema(other)) return undefined;
      res = other;
    }
    let target: unknown = res;
    for (const seg of fragment.split('/').slice(1)) {
      target =
        isSchema(target) || Array.isArray(target)
          ? (target as any)[decodeURIComponent(seg).replace(/~1/g, '/').replace(/~0/g, '~')]
          : undefined;
    }
    return isSchema(target) ? [target, res] : undefined;
  }
}

type Schema = Record<string, unknown>;
/** a subschema and the schema resource its local `$ref`s resolve against */
type Applied = [Schema, Schema];

const isSchema = (v: unknown): v is Schema => v !== null && typeof v === 'object' && !Array.isArray(v);
