// The validator cache: ajv's standalone code of each project schema it compiled (schemas.ts,
// SchemaStore), kept under the SHA-256 of the schema's JSON text and of what else decides that code
// (ajv's options, formats and keywords), so that a start whose schemas did not change evaluates
// that code instead of compiling each schema (ajv took some 80 ms of a start serving every route of
// a project). The engine's checks of a schema (schema-check.ts) still run on every start: a later
// engine's checks hold for an unchanged schema too. One of the start-up caches of disk-cache.ts.
//
// The cache holds code a start runs, as dist/engine.cjs.cache holds bytecode: it is trusted only as
// disk-cache.ts trusts a file (owned by the user running the engine, writable by nobody else, its
// checksum holding, written by the same ajv); anything else, and the schema is compiled as before.
// Only schemas that passed every check and compiled are kept: a bad schema is said as ever.

import ajvPackage from 'ajv/package.json' with { type: 'json' };
import formatsPackage from 'ajv-formats/package.json' with { type: 'json' };
import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';
import standaloneCode from 'ajv/dist/standalone/index.js';
// what ajv's standalone code of a JSON Schema 2020-12 validator requires; the bundle carries them
import * as equal from 'ajv/dist/runtime/equal.js';
import * as ucs2length from 'ajv/dist/runtime/ucs2length.js';
import * as uri from 'ajv/dist/runtime/uri.js';
import * as validationError from 'ajv/dist/runtime/validation_error.js';
import { DiskCache, exactInJson, keyOf } from '../core/disk-cache.ts';

/** What standalone code requires for a format: the ajv's own formats (createAjv's `code.formats`). */
export const FORMATS_MODULE = 'engine:ajv-formats';

/**
 * Within 2000 validators and 1 MiB: every start reads the whole file (this project's 32 schema
 * files are some 380 KB of code).
 */
const cache = new DiskCache(
  'schema-validators.json',
  `ajv ${ajvPackage.version} ajv-formats ${formatsPackage.version} format 1`,
  { entries: 2000, bytes: 1 << 20 },
);

/** A CommonJS module as the standalone code requires it, whether the import gave it or its namespace. */
const cjs = (ns: object): object => {
  const d = (ns as { default?: { __esModule?: boolean } }).default;
  return d?.__esModule ? d : ns;
};
const RUNTIME = new Map<string, object>([
  ['ajv/dist/runtime/equal', cjs(equal)],
  ['ajv/dist/runtime/ucs2length', cjs(ucs2length)],
  ['ajv/dist/runtime/uri', cjs(uri)],
  ['ajv/dist/runtime/validation_error', cjs(validationError)],
]);

/** What decides an ajv's code beside the schema, hashed once per ajv. */
const producers = new WeakMap<Ajv2020, string>();

function producerOf(ajv: Ajv2020): string {
  let p = producers.get(ajv);
  if (p === undefined) {
    const rules = (ajv as unknown as { RULES: { all: Record<string, true | { definition: object }> } }).RULES.all;
    // a format's code depends on its kind (a function, a regular expression, an object and its type);
    // a keyword's on its definition, functions included
    const text = JSON.stringify(
      [
        { ...ajv.opts, uriResolver: undefined, code: { ...ajv.opts.code, source: undefined } },
        ajv.formats,
        Object.entries(rules).map(([k, r]) => [k, r === true || r.definition]),
      ],
      (_k, v: unknown) => (typeof v === 'function' ? `function ${String(v)}` : v instanceof RegExp ? `${v}` : v),
    );
    p = keyOf(text);
    producers.set(ajv, p);
  }
  return p;
}

/** The last key worked out: a miss asks for it twice (keptValidator, then compileKept). */
let last: { ajv: Ajv2020; schema: unknown; key: string | undefined } | undefined;

/** The key of `schema` for `ajv`, or undefined when its code cannot be kept. */
function keyFor(ajv: Ajv2020, schema: unknown): string | undefined {
  if (!cache.on) return undefined;
  if (last?.ajv !== ajv || last.schema !== schema)
    last = {
      ajv,
      schema,
      key: selfContained(schema) ? keyOf(`${producerOf(ajv)}\n${JSON.stringify(schema)}`) : undefined,
    };
  return last.key;
}

/**
 * The kept validator of `schema` (which the caller checked), built from its code without compiling,
 * or undefined: then the caller compiles it (compileKept). A schema with `$id` is still added to
 * `ajv` (uncompiled) so that later schemas can `$ref` it; one whose
 * `$id` `ajv` knows already is left to the caller (the validator of that id, or ajv's error).
 */
export function keptValidator(ajv: Ajv2020, schema: Record<string, unknown>): ValidateFunction | undefined {
  const key = keyFor(ajv, schema);
  const code = key === undefined ? undefined : cache.get(key);
  if (code === undefined) return undefined;
  last = undefined;
  if (typeof schema.$id === 'string' && ajv.getSchema(schema.$id)) return undefined;
  let validate: ValidateFunction;
  try {
    validate = evaluate(ajv, code);
  } catch {
    return undefined;
  }
  if (typeof schema.$id === 'string') ajv.addSchema(schema, undefined, undefined, false);
  validate.schema = schema;
  return validate;
}

/** Compiles a schema that passed its checks, and keeps its code for later processes. */
export function compileKept(ajv: Ajv2020, schema: Record<string, unknown>): ValidateFunction {
  const key = keyFor(ajv, schema);
  last = undefined;
  if (key === undefined) return ajv.compile(schema);
  // ajv keeps a validator's source only when asked: about 8 % of a compile, so only while kept
  const code = ajv.opts.code;
  const before = code.source;
  code.source = true;
  try {
    const validate = ajv.compile(schema);
    try {
      cache.set(key, (standaloneCode as unknown as typeof standaloneCode.default)(ajv, validate));
    } catch {
      // a validator ajv had compiled before, without its source: compiled again by the next start
    }
    return validate;
  } finally {
    code.source = before;
  }
}

/** Writes what this process learnt (as it exits; tests call it). */
export function writeValidatorCache(): void {
  cache.write();
}

/** The validator standalone code exports, its runtime modules and formats given by `require`. */
function evaluate(ajv: Ajv2020, code: string): ValidateFunction {
  const require = (name: string): unknown => {
    if (name === FORMATS_MODULE) return ajv.formats;
    const m = RUNTIME.get(name);
    if (!m) throw new Error(`a kept validator requires ${name}`);
    return m;
  };
  const module = { exports: {} as unknown };
  // ajv's code, from a file disk-cache.ts trusts (see above)
  new Function('require', 'module', 'exports', code)(require, module, module.exports);
  const validate = module.exports as ValidateFunction;
  if (typeof validate !== 'function') throw new Error('a kept validator exports no function');
  validate.errors = null;
  return validate;
}

/**
 * Whether the code of `schema` depends on nothing but its JSON text: JSON gives it back exactly (an
 * inline schema of a route may hold an infinity or a shared mapping, which standalone code would
 * spell as JSON) and it names no other schema (`$ref` other than `#...`, `$dynamicRef`,
 * `$recursiveRef`).
 */
const selfContained = (schema: unknown): boolean =>
  exactInJson(
    schema,
    (o) =>
      !('$dynamicRef' in o || '$recursiveRef' in o) &&
      (!('$ref' in o) || (typeof o.$ref === 'string' && o.$ref.startsWith('#'))),
  );
