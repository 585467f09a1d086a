// OpenAPI 3.1 document of the listener: the HTTP routes with their validate schemas (hoisted into
// components), parameters, webhook signature headers and problem responses, the operations
// endpoints and, when the gateway serves it, POST /mcp.

import type { CompiledRoute } from '../pipeline/route.ts';
import { SchemaComponents } from './openapi-schemas.ts';
import { routeInputs, type ParamInfo } from './openapi-route-inputs.ts';
import {
  HEADERS,
  OPERATIONS_PATHS,
  PARAMETERS,
  PROBLEM_RESPONSES,
  PROBLEM_SCHEMA,
  READINESS_SCHEMA,
  SIGNATURE_PARAMETERS,
  WEBHOOK_ACK,
} from './openapi-common.ts';
import { MCP_PATHS, MCP_SCHEMAS, MCP_SECURITY_SCHEMES } from './openapi-mcp.ts';

type Json = Record<string, unknown>;

export interface HttpRouteEntry {
  route: CompiledRoute;
  cfg: {
    method: string;
    path: string;
    params: string[];
    summary?: string;
    status?: number;
    'content-type'?: 'json' | 'any';
  };
}

export interface OpenApiOptions {
  /** the engine's URL for `servers`; without it `/` (the host that served the document) */
  serverUrl?: string;
  /** the gateway serves /mcp on this listener */
  mcp?: boolean;
}

const SIGNATURE_HEADERS = new Map(Object.entries(SIGNATURE_PARAMETERS).map(([k, p]) => [p.name as string, k]));
const TAGS: Record<string, string> = {
  operations: 'health, readiness, metrics and this document',
  gateway: 'agent tool gateway (MCP)',
};

export function openApiDocument(
  routes: HttpRouteEntry[],
  info: { title: string; version: string; description?: string },
  opts: OpenApiOptions = {},
): Json {
  const components = new SchemaComponents(['Problem', 'Readiness', 'WebhookAck', ...Object.keys(MCP_SCHEMAS)]);
  const paths: Record<string, Json> = {};
  const ids = new Set<string>();
  const uniqueId = (id: string) => {
    let n = id;
    for (let i = 2; ids.has(n); i++) n = `${id}-${i}`;
    ids.add(n);
    return n;
  };
  // fixed operationIds first, so a route with the same id is the one that gets a suffix
  const fixed = { ...OPERATIONS_PATHS, ...(opts.mcp ? MCP_PATHS : {}) };
  for (const item of Object.values(fixed))
    for (const op of Object.values(item)) ids.add((op as Json).operationId as string);

  for (const { route, cfg } of routes) {
    const op = operation(route, cfg, components, uniqueId(route.id));
    (paths[cfg.path] ??= {})[cfg.method.toLowerCase()] = op;
  }
  Object.assign(paths, fixed);

  const doc: Json = {
    openapi: '3.1.0',
    info: {
      description:
        'Unified API, vendor webhooks, agent tool gateway and operations endpoints of the integration engine. Errors are RFC 9457 problem details.',
      ...info,
    },
    servers: [{ url: opts.serverUrl ?? '/', description: 'this engine' }],
    tags: usedTags(paths),
    paths,
    components: {
      schemas: {
        Problem: PROBLEM_SCHEMA,
        Readiness: READINESS_SCHEMA,
        WebhookAck: WEBHOOK_ACK,
        ...(opts.mcp ? MCP_SCHEMAS : {}),
        ...components.schemas,
      },
      responses: PROBLEM_RESPONSES,
      parameters: { ...PARAMETERS, ...SIGNATURE_PARAMETERS },
      headers: HEADERS,
      securitySchemes: opts.mcp ? MCP_SECURITY_SCHEMES : {},
    },
  };
  pruneComponents(doc);
  return doc;
}

function operation(
  route: CompiledRoute,
  cfg: HttpRouteEntry['cfg'],
  components: SchemaComponents,
  operationId: string,
): Json {
  const inputs = routeInputs(route);
  const hasBody = cfg.method !== 'GET' && cfg.method !== 'DELETE';
  const parameters: Json[] = [];
  for (const name of cfg.params) {
    const p = inputs.params.find((x) => x.in === 'path' && x.name === name);
    parameters.push(parameter(p ?? { name, in: 'path', required: true }, components, route.id));
  }
  for (const p of inputs.params) {
    if (p.in === 'query') parameters.push(parameter(p, components, route.id));
    else if (p.in === 'header' && !SIGNATURE_HEADERS.has(p.name) && p.name !== 'x-correlation-id')
      parameters.push(parameter(p, components, route.id));
  }
  if (inputs.signed)
    for (const key of SIGNATURE_HEADERS.values()) parameters.push({ $ref: `#/components/parameters/${key}` });
  parameters.push({ $ref: '#/components/parameters/CorrelationId' });

  const success = route.meta.outputSchema
    ? components.ref(route.meta.outputSchema, { hint: `${route.id}-response` })
    : inputs.signed
      ? { $ref: '#/components/schemas/WebhookAck' }
      : {};
  const responses: Json = {};
  for (const status of new Set([cfg.status ?? 200, ...inputs.statuses].sort())) {
    responses[String(status)] = {
      description: status === (cfg.status ?? 200) ? 'success' : 'success (see the description)',
      headers: { 'X-Correlation-Id': { $ref: '#/components/headers/CorrelationId' } },
      content: { 'application/json': { schema: success } },
    };
  }
  responses['400'] = { $ref: '#/components/responses/BadRequest' };
  if (inputs.signed) responses['401'] = { $ref: '#/components/responses/Unauthorized' };
  if (hasBody) responses['413'] = { $ref: '#/components/responses/PayloadTooLarge' };
  if (hasBody && (cfg['content-type'] ?? 'json') === 'json')
    responses['415'] = { $ref: '#/components/responses/UnsupportedMediaType' };
  responses['4XX'] = { $ref: '#/components/responses/ClientError' };
  responses['5XX'] = { $ref: '#/components/responses/ServerError' };

  const op: Json = {
    operationId,
    summary: cfg.summary ?? route.description?.split('\n')[0] ?? route.id,
    ...(route.description ? { description: route.description.trim() } : {}),
    ...(route.connector ? { tags: [route.connector] } : {}),
    // the engine authenticates no caller of the unified API; webhooks are signed (headers above)
    security: [],
    parameters,
  };
  if (route.meta.inputSchema && hasBody) {
    const schema = components.ref(route.meta.inputSchema, {
      file: route.meta.inputSchemaFile,
      hint: `${route.id}-request`,
    });
    op.requestBody = { required: true, content: { 'application/json': { schema } } };
  }
  op.responses = responses;
  return op;
}

function parameter(p: ParamInfo, components: SchemaComponents, routeId: string): Json {
  const schema = p.schema ? components.inline(p.schema, `${routeId}-${p.name}`) : { type: 'string' };
  return {
    name: p.name,
    in: p.in,
    required: p.in === 'path' || p.required,
    ...(p.description ? { description: p.description } : {}),
    schema,
  };
}

function usedTags(paths: Record<string, Json>): Json[] {
  const names = new Set<string>();
  for (const item of Object.values(paths))
    for (const op of Object.values(item))
      for (const t of ((op as Json).tags as string[] | undefined) ?? []) names.add(t);
  return [...names].map((name) => ({
    name,
    ...(TAGS[name] ? { description: TAGS[name] } : { description: `connector ${name}` }),
  }));
}

/** Drops components no operation reaches, so the document carries only what it uses. */
function pruneComponents(doc: Json): void {
  const comps = doc.components as Record<string, Record<string, unknown>>;
  const used = new Set<string>();
  const visit = (node: unknown): void => {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) return node.forEach(visit);
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string' && v.startsWith('#/components/')) {
        const [kind, name] = v.slice('#/components/'.length).split('/');
        const key = `${kind}/${name}`;
        if (!used.has(key)) {
          used.add(key);
          visit(comps[kind]?.[name]);
        }
      } else visit(v);
    }
  };
  visit(doc.paths);
  for (const kind of ['schemas', 'responses', 'parameters', 'headers']) {
    comps[kind] = Object.fromEntries(Object.entries(comps[kind]).filter(([name]) => used.has(`${kind}/${name}`)));
  }
}
