// The editor sees a route before its {{placeholders}} are resolved; lint sees it after. So the
// editor schema accepts a placeholder wherever a config value may be, and still types literals:
// a non-string value takes exactly one placeholder (it then takes the property's type), a
// constrained string (enum, pattern, format) takes any text containing one.

type Schema = Record<string, any>;

const KEY = '\\{\\{\\s*[A-Za-z0-9_.-]+\\s*\\}\\}';
const WHOLE_PLACEHOLDER = { type: 'string', pattern: `^${KEY}$`, description: 'a {{property}} from the values file' };
const SOME_PLACEHOLDER = { type: 'string', pattern: KEY, description: 'text with {{property}} placeholders' };

/** Keywords that describe a value rather than constrain it: kept on the outside of the wrapper. */
const ANNOTATIONS = ['title', 'description', 'default', 'examples', 'deprecated', 'markdownDescription'];
const STRING_LIMITS = ['pattern', 'format', 'minLength', 'maxLength', 'enum', 'const'];
const SUBSCHEMA_MAPS = ['properties', 'patternProperties', '$defs'];
const SUBSCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const SUBSCHEMAS = ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains'];

/** What strings a schema accepts: all of them, some (constrained), or none (another type). */
function strings(s: Schema): 'all' | 'some' | 'none' {
  if (s.$ref) return 'none';
  for (const k of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(s[k])) {
      const r = s[k].filter((b: Schema) => !spellsScalar(b, s[k])).map(strings);
      return r.includes('all') ? 'all' : r.includes('some') ? 'some' : 'none';
    }
  }
  const types = s.type === undefined ? undefined : [s.type].flat();
  if (s.enum || s.const !== undefined)
    return [s.enum ?? [s.const]].flat().some((v: unknown) => typeof v === 'string') ? 'some' : 'none';
  if (types && !types.includes('string')) return 'none';
  return STRING_LIMITS.some((k) => s[k] !== undefined) ? 'some' : 'all';
}

/**
 * A string branch that only spells another branch's scalar (`"3"` for 3, `"true"` for true): a number stays a
 * number.
 */
export function spellsScalar(branch: Schema, all: Schema[]): boolean {
  const digits =
    branch.type === 'string' && typeof branch.pattern === 'string' && /^\^[\\d[\]0-9().+*?-]*\$$/.test(branch.pattern);
  const flags = Array.isArray(branch.enum) && branch.enum.every((v: unknown) => v === 'true' || v === 'false');
  return (
    (digits && all.some((b) => b.type === 'number' || b.type === 'integer')) ||
    (flags && all.some((b) => b.type === 'boolean'))
  );
}

function mapChildren(s: Schema): Schema {
  const out: Schema = { ...s };
  for (const k of SUBSCHEMA_MAPS) {
    if (s[k] && typeof s[k] === 'object')
      out[k] = Object.fromEntries(Object.entries<Schema>(s[k]).map(([n, x]) => [n, allowPlaceholders(x)]));
  }
  for (const k of SUBSCHEMA_LISTS) if (Array.isArray(s[k])) out[k] = s[k].map((x: Schema) => visitInner(x));
  for (const k of SUBSCHEMAS) if (s[k] && typeof s[k] === 'object') out[k] = allowPlaceholders(s[k]);
  return out;
}

/** Branches of anyOf/oneOf: their children get placeholders, the branch itself is covered by its parent. */
function visitInner(s: Schema): Schema {
  return s && typeof s === 'object' ? mapChildren(s) : s;
}

/** A value position: accepts a placeholder besides what it accepted (a `$ref` to a step stays a step). */
function allowPlaceholders(s: Schema): Schema {
  if (!s || typeof s !== 'object' || s.$ref) return s;
  const inner = mapChildren(s);
  const accepts = strings(s);
  if (accepts === 'all') return inner;
  const placeholder = accepts === 'some' ? SOME_PLACEHOLDER : WHOLE_PLACEHOLDER;
  const outer: Schema = {};
  const rest: Schema = {};
  for (const [k, v] of Object.entries(inner)) (ANNOTATIONS.includes(k) ? outer : rest)[k] = v;
  // an anyOf stays flat, so editors list the alternatives side by side
  if (Object.keys(rest).length === 1 && Array.isArray(rest.anyOf))
    return { ...outer, anyOf: [...rest.anyOf, placeholder] };
  return { ...outer, anyOf: [rest, placeholder] };
}

/** The config object of a step or source kind: its keys take placeholders, the object itself does not. */
export function configWithPlaceholders(s: Schema): Schema {
  return mapChildren(s);
}
