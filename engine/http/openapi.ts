// OpenAPI 3.1 document generated from the HTTP routes and their validate schemas.

import type { CompiledRoute } from '../runtime/route.ts';

const PROBLEM = {
  type: 'object',
  description: 'RFC 9457 problem details',
  required: ['type', 'title', 'status'],
  properties: {
    type: { type: 'string' }, title: { type: 'string' }, status: { type: 'integer' }, detail: { type: 'string' },
    code: { type: 'string', description: 'platform code, e.g. GC025' }, correlationId: { type: 'string' },
    errors: { type: 'array', items: { type: 'object', properties: { field: { type: 'string' }, message: { type: 'string' }, index: { type: 'integer' } } } },
  },
};

export function openApiDocument(routes: { route: CompiledRoute; cfg: { method: string; path: string; params: string[]; summary?: string; status?: number } }[], info: { title: string; version: string }): unknown {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const { route, cfg } of routes) {
    const op: Record<string, unknown> = {
      operationId: route.id,
      summary: cfg.summary ?? route.description?.split('\n')[0],
      description: route.description,
      tags: route.connector ? [route.connector] : undefined,
      parameters: [
        ...cfg.params.map((p) => ({ name: p, in: 'path', required: true, schema: { type: 'string' } })),
        { name: 'X-Correlation-Id', in: 'header', required: false, schema: { type: 'string' }, description: 'echoed in the answer; generated when absent' },
      ],
      responses: {
        [String(cfg.status ?? 200)]: { description: 'success', content: { 'application/json': { schema: route.meta.outputSchema ?? {} } } },
        '400': { $ref: '#/components/responses/Problem' },
        '4XX': { $ref: '#/components/responses/Problem' },
        '5XX': { $ref: '#/components/responses/Problem' },
      },
    };
    if (route.meta.inputSchema && cfg.method !== 'GET') {
      op.requestBody = { required: true, content: { 'application/json': { schema: stripIds(route.meta.inputSchema) } } };
    }
    const p = cfg.path;
    (paths[p] ??= {})[cfg.method.toLowerCase()] = op;
  }
  return {
    openapi: '3.1.0',
    info,
    paths,
    components: {
      schemas: { Problem: PROBLEM },
      responses: { Problem: { description: 'problem details', content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } } },
    },
  };
}

/** `$id` and `$schema` of embedded schema files are not allowed inside OpenAPI components. */
function stripIds(s: Record<string, unknown>): Record<string, unknown> {
  const { $id: _id, $schema: _s, ...rest } = s;
  return rest;
}
