// Checks one config object against its kind's schema and turns ajv's errors into diagnostics
// at the right line, with "did you mean" for unknown keys and the allowed values of enums.

import { createHash } from 'node:crypto';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { createAjv } from './schemas.ts';
import { didYouMean, markValueProblem, type Diagnostic } from '../core/diagnostics.ts';
import { diagAt, type YamlSource, type YamlPath } from '../core/yaml-source.ts';
import { configValidators } from './precompiled.ts';

interface Checker {
  validate: ValidateFunction;
  schema: Record<string, unknown>;
}

// process-wide on purpose: validators of the step kinds' own schemas (code), by schema object, for any engine
let ajv: Ajv2020 | undefined;
const cache = new Map<Record<string, unknown>, Checker>();

/** Nested step lists are checked when they compile; here a step only has to be its kind (and maybe `if`). */
const DEFS = { step: { type: 'object', minProperties: 1, maxProperties: 2 }, handler: { type: 'object' } };

/** The schema a config of a kind is checked against: the kind's own, with the shared $defs. */
export function fullSchema(schema: Record<string, unknown>): Record<string, unknown> {
  return { ...schema, $defs: { ...DEFS, ...(schema.$defs as object | undefined) } };
}

/**
 * The name of a full schema's validator in the build: its content, so an edited schema never meets a stale
 * validator.
 */
export function schemaKey(full: Record<string, unknown>): string {
  return createHash('sha256').update(JSON.stringify(full)).digest('hex').slice(0, 16);
}

function validatorFor(schema: Record<string, unknown>): Checker {
  let c = cache.get(schema);
  if (!c) {
    const full = fullSchema(schema);
    // the build carries these validators as code (build/bundle.mjs): compiling them was about
    // half the start-up CPU of a one-route engine; from the sources they compile here, once
    const validate =
      (configValidators.size > 0 ? configValidators.get(schemaKey(full)) : undefined) ??
      (ajv ??= createAjv({ validateSchema: false })).compile(full);
    c = { validate, schema: full };
    cache.set(schema, c);
  }
  return c;
}

/**
 * The name a message gives the value at `path`: its key, or for a list item the list's key and index
 * (`kind[1]`, not `1`).
 */
function leafName(path: YamlPath): string {
  let i = path.length - 1;
  while (i >= 0 && typeof path[i] === 'number') i--;
  return (
    String(path[i] ?? '') +
    path
      .slice(i + 1)
      .map((n) => `[${n}]`)
      .join('')
  );
}

function subschema(root: Record<string, unknown>, schemaPath: string): any {
  // schemaPath like '#/properties/retry/additionalProperties'; we want the parent object schema
  const parts = schemaPath.replace(/^#\//, '').split('/').slice(0, -1);
  let s: any = root;
  for (const p of parts) s = s?.[decodeURIComponent(p.replace(/~1/g, '/').replace(/~0/g, '~'))];
  return s;
}

export function checkConfig(
  value: unknown,
  schema: Record<string, unknown>,
  src: YamlSource,
  base: YamlPath,
  what: string,
): Diagnostic[] {
  const { validate, schema: full } = validatorFor(schema);
  if (validate(value)) return [];
  const errors = (validate.errors ?? []) as ErrorObject[];
  const specific = collapseAlternatives(errors, full, value).filter(
    (e) => !['oneOf', 'anyOf', 'if', 'not'].includes(e.keyword),
  );
  const out: Diagnostic[] = [];
  const seen = new Set<string>();
  for (const e of specific.length ? specific : errors) {
    const rel = e.instancePath
      .split('/')
      .slice(1)
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
      .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
    const path = [...base, ...rel];
    let d: Diagnostic;
    switch (e.keyword) {
      case 'additionalProperties': {
        const key = (e.params as any).additionalProperty as string;
        const parent = subschema(full, e.schemaPath);
        const allowed = Object.keys(parent?.properties ?? {});
        const s = didYouMean(key, allowed);
        d = diagAt(
          src,
          [...path, key],
          `unknown key '${key}' in ${what}${s ? `; did you mean '${s}'?` : allowed.length ? `; allowed: ${allowed.join(', ')}` : ''}`,
          true,
        );
        break;
      }
      case 'minProperties':
        d = diagAt(src, path, path.length > base.length ? `'${leafName(path)}' is empty` : `${what} is empty`);
        break;
      case 'required':
        d = diagAt(
          src,
          path,
          `${what} is missing required key '${(e.params as any).missingProperty}'`,
          path.length > base.length,
        );
        break;
      case 'enum':
        d = diagAt(
          src,
          path,
          `${path.length ? `'${leafName(path)}'` : 'value'} must be one of: ${(e.params as any).allowedValues.join(', ')}${typeof getAt(value, rel) === 'string' ? suggestionFor(String(getAt(value, rel)), (e.params as any).allowedValues) : ''}`,
        );
        break;
      case 'type':
        d = diagAt(
          src,
          path,
          `'${path.length ? leafName(path) : what}' must be ${typeWords((e.params as any).type, subschema(full, e.schemaPath))}`,
        );
        break;
      default:
        d = diagAt(src, path, `'${path.length ? leafName(path) : what}' ${e.message}`);
    }
    if (!['additionalProperties', 'minProperties', 'required'].includes(e.keyword)) markValueProblem(d);
    const k = `${d.line}:${d.col}:${d.message}`;
    if (!seen.has(k)) {
      seen.add(k);
      out.push(d);
    }
  }
  return out;
}

/**
 * One diagnostic per anyOf/oneOf: when the value took a branch (an error lies deeper than the
 * alternatives), the other branches' complaints about its type are noise and go; when no branch
 * fits, their complaints become one "must be A or B" instead of one line per branch.
 */
function collapseAlternatives(errors: ErrorObject[], root: Record<string, unknown>, value: unknown): ErrorObject[] {
  let out = errors;
  for (const alt of errors) {
    if (alt.keyword !== 'anyOf' && alt.keyword !== 'oneOf') continue;
    const prefix = `${alt.schemaPath}/`;
    const branch = out.filter((e) => e.schemaPath.startsWith(prefix));
    // `oneOf: [{required: [a]}, {required: [b]}]` (transform's expression or file): a mapping with both
    const keys = requiredAlternatives(subschema(root, `${prefix}x`));
    const at = getAt(value, pointer(alt.instancePath));
    if (branch.length === 0 && keys && alt.keyword === 'oneOf' && at && typeof at === 'object' && !Array.isArray(at)) {
      out = out.map((e) =>
        e === alt
          ? { ...alt, keyword: 'alternatives', message: `takes only one of ${keys.map((k) => `'${k}'`).join(', ')}` }
          : e,
      );
      continue;
    }
    if (branch.length === 0) continue;
    const deeper = branch.some((e) => e.instancePath.length > alt.instancePath.length);
    const shallow = branch.filter((e) => e.instancePath === alt.instancePath);
    if (deeper) {
      out = out.filter((e) => !shallow.includes(e));
      continue;
    }
    // none of the keys one of which is required: "needs 'expression' or 'file'", not ajv's wording twice
    const message =
      keys && shallow.every((e) => e.keyword === 'required')
        ? `needs ${keys.map((k) => `'${k}'`).join(' or ')}`
        : `must be ${[...new Set(shallow.map((e) => describeBranch(e, subschema(root, e.schemaPath))))].join(' or ')}`;
    const merged: ErrorObject = { ...alt, keyword: 'alternatives', message };
    out = out.filter((e) => !shallow.includes(e)).map((e) => (e === alt ? merged : e));
  }
  return out;
}

/** The keys of alternatives that each only require one key (`[{required: [a]}, {required: [b]}]`), else undefined. */
function requiredAlternatives(branches: unknown): string[] | undefined {
  if (!Array.isArray(branches) || branches.length < 2) return undefined;
  const keys = branches.map((b) =>
    b && Object.keys(b).length === 1 && Array.isArray(b.required) && b.required.length === 1
      ? String(b.required[0])
      : undefined,
  );
  return keys.every((k) => k !== undefined) ? (keys as string[]) : undefined;
}

/** A JSON pointer (ajv's instancePath) as a path of keys and indexes. */
function pointer(instancePath: string): (string | number)[] {
  return instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
}

/** Patterns of the engine's own schemas, in words: a message never shows a regular expression. */
const PATTERN_WORDS: Record<string, string> = {
  '^\\d+(\\.\\d+)?$': 'a number',
  '^\\d+$': 'a whole number',
  '^[1-9][0-9]*$': 'a whole number from 1',
  '^[1-9]\\d*$': 'a whole number from 1',
  '^/': "a path starting with '/'",
  '^[a-z0-9][a-z0-9-]*$': "lower-case letters, digits and '-'",
};

/** A JSON Schema type in words. */
function typeWords(type: unknown, schema?: Record<string, any>): string {
  const min = typeof schema?.minimum === 'number' && schema.minimum > 0 ? ` from ${schema.minimum}` : '';
  switch (type) {
    case 'integer':
      return `a whole number${min}`;
    case 'number':
      return `a number${min}`;
    case 'boolean':
      return 'true or false';
    case 'string':
      return 'text';
    case 'object':
      return 'a mapping (key: value)';
    case 'array':
      return 'a list';
    case 'null':
      return 'empty';
    default:
      return Array.isArray(type) ? type.map((t) => typeWords(t)).join(' or ') : String(type);
  }
}

/** What one alternative wants, in words, from its schema where it says more than the failed keyword. */
function describeBranch(e: ErrorObject, branch: Record<string, any> | undefined): string {
  const enumWords = (values: unknown[]) =>
    values.length === 2 && values.includes('true') && values.includes('false')
      ? 'true or false'
      : `one of: ${values.join(', ')}`;
  if (typeof branch?.pattern === 'string') return PATTERN_WORDS[branch.pattern] ?? 'text of another form';
  if (Array.isArray(branch?.enum)) return enumWords(branch.enum);
  const p = e.params as Record<string, any>;
  switch (e.keyword) {
    case 'type':
      return typeWords(p.type, branch);
    case 'enum':
      return enumWords(p.allowedValues as unknown[]);
    case 'const':
      return `'${String(p.allowedValue)}'`;
    case 'pattern':
      return PATTERN_WORDS[String(p.pattern)] ?? 'text of another form';
    case 'minimum':
      return typeWords(branch?.type ?? 'number', branch);
    default:
      // ajv says "must be >= 1": the caller says "must be" once
      return String(e.message).replace(/^must be /, '');
  }
}

function suggestionFor(v: string, allowed: unknown[]): string {
  const s = didYouMean(v, allowed.map(String));
  return s ? ` (did you mean '${s}'?)` : '';
}

function getAt(v: unknown, path: (string | number)[]): unknown {
  let cur: any = v;
  for (const p of path) cur = cur?.[p];
  return cur;
}
