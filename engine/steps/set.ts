// set: assigns several targets at once (vars, the response status, response headers).

import { defineStep } from './step-kind.ts';
import { isPromise, type Expression } from '../expressions/expressions.ts';
import { compileTarget, TARGET_PATTERN, type Setter } from '../pipeline/targets.ts';
import type { Exchange } from '../pipeline/exchange.ts';

interface SetConfig {
  values?: Record<string, string>;
  'response-headers'?: Record<string, string>;
}

export default defineStep<SetConfig>({
  kind: 'set',
  description: 'Assigns JSONata results to targets (body, status, vars.<name>) and response headers.',
  schema: {
    type: 'object',
    additionalProperties: false,
    // a set that sets nothing is a slip (a value left out, an indentation lost)
    minProperties: 1,
    properties: {
      values: {
        type: 'object',
        minProperties: 1,
        propertyNames: { pattern: TARGET_PATTERN },
        additionalProperties: { type: 'string' },
        description: 'target (body, status or vars.<name>): JSONata giving its new value',
      },
      'response-headers': {
        type: 'object',
        minProperties: 1,
        additionalProperties: { type: 'string' },
        description: 'header name: JSONata giving the value of that header in the answer',
      },
    },
  },
  compile(cfg, ctx) {
    const assigns: [Setter, Expression][] = Object.entries(cfg.values ?? {}).map(([t, e]) => [
      compileTarget(t),
      ctx.expr(e, ['values', t]),
    ]);
    const headers: [string, Expression][] = Object.entries(cfg['response-headers'] ?? {}).map(([h, e]) => [
      h.toLowerCase(),
      ctx.expr(e, ['response-headers', h]),
    ]);
    const all: [(ex: Exchange, v: unknown) => void, Expression][] = [
      ...assigns,
      ...headers.map(
        ([h, e]) =>
          [
            (ex: Exchange, v: unknown) => {
              if (v !== undefined && v !== null) ex.responseHeaders[h] = String(v);
            },
            e,
          ] as [(ex: Exchange, v: unknown) => void, Expression],
      ),
    ];
    return async (ex) => {
      for (const [set, e] of all) {
        const v = e.evaluate(ex);
        set(ex, isPromise(v) ? await v : v);
      }
    };
  },
  request(c, facts) {
    // a status set to a 2xx literal (or a choice of them) is one the route may answer with
    const status = (c as { values?: { status?: unknown } } | null)?.values?.status;
    if (status !== undefined) for (const m of String(status).matchAll(/\b2\d\d\b/g)) facts.status(Number(m[0]));
  },
  example: `id: example-set
from:
  http:
    path: /examples/set
steps:
  - set:
      values:
        vars.received: "$now()"
        status: "202"
        body: "{ 'accepted': true, 'correlationId': correlationId }"
      response-headers:
        Location: "'/examples/set/' & correlationId"`,
});
