// from: http — a path on the engine's one HTTP listener. `{name}` path parameters reach steps as
// `params.name`. JSON routes require a JSON content type (415 otherwise); bodies over the limit
// are refused (413); the raw bytes are kept for routes that verify signatures. `record-failures:
// true` records an answer >= 500 as a failed exchange (store/failed-recorder.ts): a synchronous
// caller has its answer, so this is opt-in.

import { defineSource } from './source-kind.ts';
import { failedRecorderFor } from '../store/failed-recorder.ts';
import type { HttpFailure } from '../http/route-handler.ts';

export interface HttpSourceConfig {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  'content-type'?: 'json' | 'any';
  'body-limit'?: number;
  status?: number;
  summary?: string;
  'raw-body'?: boolean;
  'record-failures'?: boolean;
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
      'record-failures': {
        type: 'boolean',
        default: false,
        description:
          'record each answer with status >= 500 as a failed exchange (docs/failed-exchanges.md), body and headers kept for a replay',
      },
    },
  },
  compile(cfg, ctx) {
    const params = [...cfg.path.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => m[1]);
    if (/\/\/|\{[^}]*$/.test(cfg.path)) ctx.fail(`path '${cfg.path}' is malformed`, ['path']);
    return { ...cfg, method: cfg.method ?? 'POST', params };
  },
  start(route, compiled, host) {
    const cfg = compiled as HttpSourceConfig & { method: string; params: string[] };
    if (cfg['record-failures'] !== true) return host.http.addRoute(route, cfg);
    const recorder = failedRecorderFor(host.services);
    const onFailure = (f: HttpFailure): Promise<void> =>
      recorder
        .record(route, {
          source: 'http',
          error: f.error,
          body: f.raw?.toString('utf8'),
          headers: f.headers,
          context: { method: f.method, path: f.path, query: f.ex.query, params: f.ex.params },
          correlationId: f.ex.correlationId,
          ex: f.ex,
        })
        .then(
          () => undefined,
          (e: unknown) =>
            host.services.logger.error(
              { route: route.id, correlationId: f.ex.correlationId, err: e instanceof Error ? e.message : String(e) },
              'the failed request could not be recorded as a failed exchange',
            ),
        );
    host.http.addRoute(route, { ...cfg, onFailure });
  },
});
