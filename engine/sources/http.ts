// from: http — a path on the engine's one HTTP listener. `{name}` path parameters reach steps as
// `params.name`. JSON routes require a JSON content type (415 otherwise); bodies over the limit
// are refused (413); the raw bytes are kept for routes that verify signatures.

import { defineSource } from './source-kind.ts';

export interface HttpSourceConfig {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  'content-type'?: 'json' | 'any';
  'body-limit'?: number;
  status?: number;
  summary?: string;
  'raw-body'?: boolean;
}

export default defineSource<HttpSourceConfig>({
  kind: 'http',
  description: 'Serves the route at a method and path of the engine HTTP listener.',
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['path'],
    properties: {
      method: {
        enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
        default: 'POST',
        description: 'HTTP method the route answers',
      },
      path: {
        type: 'string',
        pattern: '^/',
        description: 'path with {name} parameters (in `params`), e.g. /payments/{externalReferenceNo}/cancel',
      },
      'content-type': {
        enum: ['json', 'any'],
        default: 'json',
        description: 'json: requests with a body must be application/json (415 otherwise)',
      },
      'body-limit': { type: 'integer', minimum: 1, description: 'bytes (default: the engine setting, 1 MiB)' },
      status: {
        type: 'integer',
        minimum: 200,
        maximum: 299,
        default: 200,
        description: 'status of a successful answer',
      },
      summary: { type: 'string', description: 'one line for OpenAPI' },
      'raw-body': { type: 'boolean', default: false, description: 'keep the raw body bytes (webhook signatures)' },
    },
  },
  compile(cfg, ctx) {
    const params = [...cfg.path.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => m[1]);
    if (/\/\/|\{[^}]*$/.test(cfg.path)) ctx.fail(`path '${cfg.path}' is malformed`, ['path']);
    return { ...cfg, method: cfg.method ?? 'POST', params };
  },
  start(route, compiled, host) {
    host.http.addRoute(route, compiled as HttpSourceConfig & { method: string; params: string[] });
  },
});
