// The operations endpoints (GET and HEAD): liveness, readiness, Prometheus metrics, OpenAPI.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Metrics } from '../observability/metrics.ts';

export interface OperationsOptions {
  metrics: Metrics;
  ready: () => { ready: boolean; checks: Record<string, boolean> };
  openapi: () => unknown | Promise<unknown>;
}

/** An answer of an operations endpoint: status, content type and payload. */
export interface OperationAnswer {
  status: number;
  type: string;
  payload: string;
}

const JSON_UTF8 = 'application/json; charset=utf-8';
const json = (status: number, body: unknown): OperationAnswer => ({
  status,
  type: JSON_UTF8,
  payload: JSON.stringify(body),
});

export function operations(
  o: OperationsOptions,
): Record<string, (req: IncomingMessage, res: ServerResponse) => OperationAnswer | Promise<OperationAnswer>> {
  return {
    '/health/live': () => json(200, { status: 'UP' }),
    '/health/ready': () => {
      const r = o.ready();
      return json(r.ready ? 200 : 503, { status: r.ready ? 'UP' : 'DOWN', checks: r.checks });
    },
    '/metrics': async () => ({
      status: 200,
      type: o.metrics.registry.contentType,
      payload: await o.metrics.registry.metrics(),
    }),
    '/openapi.json': async () => json(200, await o.openapi()),
  };
}
