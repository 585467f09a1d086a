// A project's JSON Schema checked before ajv compiles it, in words and at a place: an unknown
// keyword (ajv would ignore `requird`, and a request missing the field would pass), a value the
// 2020-12 meta-schema refuses (a `type` that is no type), an unknown format. Each problem has the
// JSON path of its key or value, so a schema file's problem is said at the file's line and column
// and an inline schema's at the route's.

import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject } from 'ajv';
import { suggestion, textPosition, type Diagnostic } from '../core/diagnostics.ts';
import { locate, parseYamlFile, type YamlPath } from '../core/yaml-source.ts';

export interface SchemaProblem {
  /** path of the keyword inside the schema */
  path: YamlPath;
  message: string;
  /** the problem is the key itself (an unknown keyword), not its value */
  key?: boolean;
}

const TYPES = ['array', 'boolean', 'integer', 'null', 'number', 'object', 'string'];

/** Keywords whose value is a map of subschemas, a list of them (or one), or one. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
const SCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items']);
const SCHEMA_ONES = new Set([
  'not',
  'if',
  'then',
  'else',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'items',
  'additionalItems',
  'contains',
  'propertyNames',
  'contentSchema',
]);

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The problems of `schema`, in the order they appear; none when ajv may compile it. */
export function schemaProblems(ajv: Ajv2020, schema: unknown): SchemaProblem[] {
  if (!isObject(schema) && typeof schema !== 'boolean')
    return [{ path: [], message: `a JSON Schema is an object (or true or false), got ${shown(schema)}` }];
  const meta = ajv.validateSchema(schema as object) === true ? [] : metaProblems(ajv.errors ?? [], schema);
  const keywords = ajv.RULES.keywords;
  const formats = Object.keys(ajv.formats);
  const out: SchemaProblem[] = [];
  const walk = (s: unknown, path: YamlPath): void => {
    if (!isObject(s)) return;
    for (const [k, v] of Object.entries(s)) {
      const at = [...path, k];
      if (!keywords[k]) {
        const hint = suggestion(k, Object.keys(keywords));
        out.push({
          path: at,
          key: true,
          message: `unknown JSON Schema keyword '${k}'${hint || ': ajv would ignore it and check nothing'}`,
        });
        continue;
      }
      if (k === 'format' && typeof v === 'string' && !formats.includes(v))
        out.push({
          path: at,
          message: `unknown format '${v}'${suggestion(v, formats) || `; formats: ${formats.join(', ')}`}`,
        });
      if (SCHEMA_MAPS.has(k) && isObject(v)) for (const [name, sub] of Object.entries(v)) walk(sub, [...at, name]);
      else if (SCHEMA_LISTS.has(k) && Array.isArray(v)) v.forEach((sub, i) => walk(sub, [...at, i]));
      else if (SCHEMA_ONES.has(k)) walk(v, at);
      else if (k === 'dependencies' && isObject(v))
        for (const [name, sub] of Object.entries(v)) if (isObject(sub)) walk(sub, [...at, name]);
    }
  };
  walk(schema, []);
  return [...meta, ...out];
}

/** The meta-schema's errors as one problem per place (ajv says a bad `type` three ways). */
function metaProblems(errors: ErrorObject[], schema: unknown): SchemaProblem[] {
  const byPlace = new Map<string, ErrorObject[]>();
  for (const e of errors) byPlace.set(e.instancePath, [...(byPlace.get(e.instancePath) ?? []), e]);
  const out: SchemaProblem[] = [];
  for (const [pointer, errs] of byPlace) {
    const path = pathOf(pointer, schema);
    const value = valueAt(schema, path);
    const name = path[path.length - 1];
    const inType = name === 'type' || (typeof name === 'number' && path[path.length - 2] === 'type');
    if (inType && typeof value === 'string') {
      out.push({
        path,
        message: `'${value}' is not a JSON Schema type (${TYPES.join(', ')})${suggestion(value, TYPES)}`,
      });
      continue;
    }
    // a list of types: its members say what is wrong with them
    if (name === 'type' && Array.isArray(value) && value.every((t) => typeof t === 'string')) continue;
    const said = errs.filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf');
    const words = [...new Set((said.length ? said : errs).map((e) => e.message ?? 'is not valid'))];
    const what = name === undefined ? 'the schema' : `'${name}'`;
    out.push({ path, message: `${what} ${words.join(' or ')} (got ${shown(value)})` });
  }
  return out;
}

/** A JSON pointer as a path: list indexes as numbers (YAML positions need them). */
function pathOf(pointer: string, root: unknown): YamlPath {
  const path: YamlPath = [];
  let at: unknown = root;
  for (const raw of pointer.split('/').slice(1)) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    const key = Array.isArray(at) && /^\d+$/.test(seg) ? Number(seg) : seg;
    path.push(key);
    at = at !== null && typeof at === 'object' ? (at as Record<string | number, unknown>)[key] : undefined;
  }
  return path;
}

function valueAt(root: unknown, path: YamlPath): unknown {
  let at = root;
  for (const k of path)
    at = at !== null && typeof at === 'object' ? (at as Record<string | number, unknown>)[k] : undefined;
  return at;
}

function shown(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

/** JSON text parsed, or where (offset) and why it is not JSON. */
export function parseJson(text: string): { value: unknown } | { offset: number; message: string } {
  try {
    return { value: JSON.parse(text) };
  } catch (e) {
    const msg = (e as Error).message;
    const at = / in JSON at position (\d+)/.exec(msg);
    const offset = at ? Number(at[1]) : /end of JSON input/.test(msg) ? text.length : 0;
    return { offset, message: msg.replace(/ in JSON at position \d+.*$/, '').replace(/ in JSON$/, '') };
  }
}

/** A schema file's problems at its own lines (the JSON read as YAML for the positions; 1:1 if it cannot be). */
export function schemaFileDiagnostics(
  file: string,
  text: string,
  problems: SchemaProblem[],
  suffix = '',
): Diagnostic[] {
  let src: ReturnType<typeof parseYamlFile> | undefined;
  try {
    src = parseYamlFile(file, text);
  } catch {
    src = undefined;
  }
  return problems.map((p) => ({
    file,
    ...(src ? locate(src, p.path, p.key) : { line: 1, col: 1 }),
    message: p.message + suffix,
  }));
}

/** A JSON syntax error of a schema file at its line and column. */
export function jsonSyntaxDiagnostic(
  file: string,
  text: string,
  offset: number,
  message: string,
  suffix = '',
): Diagnostic {
  return { file, ...textPosition(text, offset), message: `invalid JSON: ${message}${suffix}` };
}
