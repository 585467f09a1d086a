// What an HTTP route reads besides its body, for OpenAPI: the query, header and path parameters
// its steps use (validate steps on those targets, rule fields, `query.x` / `headers.'x'` in
// expressions), whether it verifies a webhook signature, and the success statuses `set` assigns.
// Read from the route file, since compiled steps keep no config; once per route. What a step says
// of the request its kind tells (its StepKind's `request`); the expressions are read here.

import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { CompiledRoute } from '../pipeline/route.ts';
import { STEP_KINDS } from '../steps/registry.ts';
import type { RequestFacts } from '../steps/step-kind.ts';

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

// keyed by a route one engine compiled: per engine already
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
  const facts: RequestFacts = {
    param: (target, name) => param(TARGET_IN[target], name),
    signed: () => {
      signed = true;
    },
    status: (code) => {
      statuses.add(code);
    },
  };

  const scanText = (s: string) => {
    for (const m of s.matchAll(EXPR_REF)) param(TARGET_IN[m[1]], m[2] ?? m[3]);
    for (const m of s.matchAll(FIELD_REF)) param(TARGET_IN[m[1]], m[2]);
  };
  const walk = (node: unknown): void => {
    if (typeof node === 'string') return scanText(node);
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) return node.forEach(walk);
    const o = node as Record<string, any>;
    for (const [k, child] of Object.entries(o)) STEP_KINDS.get(k)?.request?.(child, facts);
    for (const [k, child] of Object.entries(o)) if (k !== 'description') walk(child);
  };
  const d = doc as Record<string, unknown>;
  walk(d?.steps);
  walk(d?.['on-exception']);
  const params = [...found.values()].filter((p) => !(p.in === 'header' && NOT_PARAMS.has(p.name)));
  return { params, signed, statuses: [...statuses] };
}
