// Route JSON Schemas (2020-12, as ajv reads them) as OpenAPI 3.1 components: every schema and its
// $defs hoisted into components.schemas under a unique name, refs rewritten to point there, and
// keywords that are neither JSON Schema nor OpenAPI (ajv-errors' errorMessage, ...) dropped, so
// generic tools (swagger-parser, redocly, code generators) read the document as it is.

type Json = Record<string, unknown>;

/** keywords whose value is a map of schemas, one schema, or a list of schemas */
const SCHEMA_MAP = new Set(['properties', 'patternProperties', 'dependentSchemas']);
const SCHEMA_ONE = new Set([
  'items',
  'not',
  'if',
  'then',
  'else',
  'additionalProperties',
  'contains',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
  'contentSchema',
]);
const SCHEMA_LIST = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
/** keywords kept as they are: validation and annotations of 2020-12, and OpenAPI's own */
const VALUE_KEYWORDS = new Set([
  'type',
  'enum',
  'const',
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxContains',
  'minContains',
  'maxProperties',
  'minProperties',
  'required',
  'dependentRequired',
  'format',
  'title',
  'description',
  'default',
  'deprecated',
  'readOnly',
  'writeOnly',
  'examples',
  'contentEncoding',
  'contentMediaType',
  '$comment',
  'discriminator',
  'xml',
  'externalDocs',
  'example',
]);
// not kept: $id/$schema (a base URI would make tools resolve '#/...' against it), $defs/definitions
// (hoisted), $anchor/$dynamicRef/$dynamicAnchor/$vocabulary, and anything unknown

const COMPONENTS = '#/components/schemas/';

/** Letters and digits of a name in PascalCase: `payment-order-request` -> `PaymentOrderRequest`. */
function pascal(s: string): string {
  const out = s
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join('');
  return /^[A-Za-z]/.test(out) ? out : `Schema${out}`;
}

/** A name for a schema file: its file name, else the last segment of its `$id`, else its title. */
function baseName(schema: Json, file?: string): string | undefined {
  if (file)
    return file
      .split(/[\\/]/)
      .pop()!
      .replace(/(\.schema)?\.json$/, '');
  if (typeof schema.$id === 'string')
    return schema.$id
      .replace(/[#/]+$/, '')
      .split(/[:/]/)
      .pop();
  if (typeof schema.title === 'string') return schema.title;
  return undefined;
}

interface Root {
  name: string;
  defs: Map<string, string>;
}

export class SchemaComponents {
  readonly schemas: Record<string, unknown> = {};
  private byObject = new WeakMap<object, string>();
  private byId = new Map<string, Root>();

  /** `reserved`: names of the document's other schemas, which route schemas must not take */
  constructor(private reserved: string[] = []) {}

  /** Hoists a schema (once per object) and answers a `$ref` to it. */
  ref(schema: Json, opts: { file?: string; hint: string }): Json {
    const known =
      this.byObject.get(schema) ?? (typeof schema.$id === 'string' ? this.byId.get(schema.$id)?.name : undefined);
    if (known) return { $ref: COMPONENTS + known };
    const root: Root = { name: this.unique(pascal(baseName(schema, opts.file) ?? opts.hint)), defs: new Map() };
    this.byObject.set(schema, root.name);
    if (typeof schema.$id === 'string') this.byId.set(schema.$id, root);
    this.schemas[root.name] = {}; // reserved before the $defs take their names
    const defs = { ...(schema.definitions as Json | undefined), ...(schema.$defs as Json | undefined) };
    for (const d of Object.keys(defs)) root.defs.set(d, this.unique(root.name + pascal(d)));
    for (const [d, s] of Object.entries(defs)) this.schemas[root.defs.get(d)!] = this.clean(s, root);
    this.schemas[root.name] = this.clean(schema, root);
    return { $ref: COMPONENTS + root.name };
  }

  /** A schema used in place (parameters): cleaned; its refs can only point into itself. */
  inline(schema: Json, hint: string): Json {
    if (schema.$defs || schema.definitions) return this.ref(schema, { hint });
    return this.clean(schema, { name: pascal(hint), defs: new Map() }) as Json;
  }

  private unique(name: string): string {
    let n = name;
    for (let i = 2; n in this.schemas || this.reserved.includes(n); i++) n = `${name}${i}`;
    return n;
  }

  private clean(node: unknown, root: Root): unknown {
    if (typeof node === 'boolean') return node;
    if (!node || typeof node !== 'object' || Array.isArray(node)) return {};
    const out: Json = {};
    for (const [k, v] of Object.entries(node as Json)) {
      if (k === '$ref' && typeof v === 'string') out.$ref = this.rewrite(v, root);
      else if (SCHEMA_MAP.has(k) && v && typeof v === 'object') {
        out[k] = Object.fromEntries(Object.entries(v as Json).map(([p, s]) => [p, this.clean(s, root)]));
      } else if (SCHEMA_ONE.has(k)) out[k] = this.clean(v, root);
      else if (SCHEMA_LIST.has(k) && Array.isArray(v)) out[k] = v.map((s) => this.clean(s, root));
      else if (VALUE_KEYWORDS.has(k) || k.startsWith('x-')) out[k] = v;
    }
    return out;
  }

  /** `#`, `#/$defs/x/...`, `#/...` and `<$id>#...` of a known schema, as refs into the components. */
  private rewrite(ref: string, root: Root): string {
    const hash = ref.indexOf('#');
    const id = hash < 0 ? ref : ref.slice(0, hash);
    const pointer = hash < 0 ? '' : ref.slice(hash + 1);
    const target = id === '' ? root : this.byId.get(id);
    // an unknown external ref would dangle: an empty (any) schema is the honest fallback
    if (!target) return COMPONENTS + this.unresolved(ref);
    const m = /^\/(?:\$defs|definitions)\/([^/]+)(.*)$/.exec(pointer);
    if (m) {
      const def = target.defs.get(decodeURIComponent(m[1]).replace(/~1/g, '/').replace(/~0/g, '~'));
      return def ? COMPONENTS + def + m[2] : COMPONENTS + this.unresolved(ref);
    }
    return COMPONENTS + target.name + pointer;
  }

  private unresolved(ref: string): string {
    const name = 'Unresolved' + pascal(ref);
    this.schemas[name] ??= { description: `\`${ref}\` could not be resolved in this document` };
    return name;
  }
}
