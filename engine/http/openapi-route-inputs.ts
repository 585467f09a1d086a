// What an HTTP route reads besides its body, for OpenAPI: the query, header and path parameters
// its steps use (validate steps on those targets, rule fields, `query.x` / `headers.'x'` in
// expressions), whether it verifies a webhook signature, and the success statuses `set` assigns.
// Read from the route file, since compiled steps keep no config; once per route.

import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { CompiledRoute } from '../runtime/route.ts';

export type ParamIn = 'query' | 'header' | 'path';

export interface ParamInfo {
  name: string;
  in: ParamIn;
  required: boolean;
  schema?: Record<string, unknown>;
  description?: string;
}

export interface RouteInputs {
  params: ParamInfo[];
  /** a verify-signature step authenticates the request (Standard Webhooks) */
  signed: boolean;
  /** 2xx statuses a `set` step may give the answer besides the source's */
  statuses: number[];
}

const TARGET_IN: Record<string, ParamIn> = { query: 'query', headers: 'header', params: 'path' };
// in an expression: query.x, params.x, headers.x or headers.'x-y' (not vars.query.x)
const EXPR_REF = /(?<![\w.$])(query|params|headers)\.(?:'([^']+)'|([A-Za-z_][A-Za-z0-9_]*))/g;
// a rule's field, or a field named in an `errors` expression: /query/x, /headers/x, /params/x
const FIELD_REF = /(?<![\w])\/(query|params|headers)\/([A-Za-z0-9_.-]+)/g;
/** headers HTTP and OpenAPI describe themselves (content negotiation, credentials) */
const NOT_PARAMS = new Set(['content-type', 'accept', 'authorization', 'content-length']);

const cache = new WeakMap<CompiledRoute, RouteInputs>();

export function routeInputs(route: CompiledRoute): RouteInputs {
  let r = cache.get(route);
  if (!r) cache.set(route, (r = readInputs(route)));
  return r;
}

function readInputs(route: CompiledRoute): RouteInputs {
  let doc: unknown;
  try {
    doc = parse(readFileSync(route.file, 'utf8'), { merge: true });
  } catch {
    return { params: [], signed: false, statuses: [] };
  }
  const found = new Map<string, ParamInfo>();
  const param = (where: ParamIn, name: string): ParamInfo => {
    const n = where === 'header' ? name.toLowerCase() : name;
    const key = `${where}:${n}`;
    let p = found.get(key);
    if (!p) found.set(key, (p = { name: n, in: where, required: where === 'path' }));
    return p;
  };
  let signed = false;
  const statuses = new Set<number>();

  const scanText = (s: string) => {
    for (const m of s.matchAll(EXPR_REF)) param(TARGET_IN[m[1]], m[2] ?? m[3]);
    for (const m of s.matchAll(FIELD_REF)) param(TARGET_IN[m[1]], m[2]);
  };
  const walk = (node: unknown): void => {
    if (typeof node === 'string') return scanText(node);
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) return node.forEach(walk);
    const o = node as Record<string, any>;
    if (o['verify-signature']) signed = true;
    const v = o.validate;
    if (v && typeof v === 'object' && TARGET_IN[v.target] && v.schema && typeof v.schema === 'object') {
      const where = TARGET_IN[v.target];
      const required = new Set<string>(Array.isArray(v.schema.required) ? v.schema.required : []);
      for (const [name, schema] of Object.entries<Record<string, unknown>>(v.schema.properties ?? {})) {
        const p = param(where, name);
        // the file is read as written: a schema with a {{placeholder}} would show it unresolved
        if (!JSON.stringify(schema).includes('{{')) p.schema = schema;
        if (required.has(name)) p.required = true;
      }
    }
    for (const rule of (v && Array.isArray(v.rules) ? v.rules : []) as Record<string, unknown>[]) {
      const m = typeof rule.field === 'string' ? /^\/(query|params|headers)\/([A-Za-z0-9_.-]+)$/.exec(rule.field) : null;
      if (m && typeof rule.message === 'string') param(TARGET_IN[m[1]], m[2]).description ??= rule.message;
    }
    const status = o.set?.values?.status;
    if (status !== undefined) for (const m of String(status).matchAll(/\b2\d\d\b/g)) statuses.add(Number(m[0]));
    for (const [k, child] of Object.entries(o)) if (k !== 'description') walk(child);
  };
  const d = doc as Record<string, unknown>;
  walk(d?.steps);
  walk(d?.['on-exception']);
  const params = [...found.values()].filter((p) => !(p.in === 'header' && NOT_PARAMS.has(p.name)));
  return { params, signed, statuses: [...statuses] };
}
