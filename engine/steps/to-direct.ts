// to-direct: calls another route (a `direct` source) in-process, with the same correlation id
// and user; its answer becomes the body (or `into`), its error propagates.

import { defineStep } from './step-kind.ts';
import { isPromise } from '../expressions/expressions.ts';
import { compileTarget, TARGET_PATTERN } from '../pipeline/targets.ts';

interface ToDirectConfig {
  route: string;
  body?: string;
  into?: string;
}

export default defineStep<ToDirectConfig>({
  kind: 'to-direct',
  description: 'Calls a route with a direct source in-process and takes its answer.',
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['route'],
    properties: {
      route: { type: 'string', description: 'id of the route to call' },
      body: { type: 'string', description: 'JSONata for the body sent (default: the body)' },
      into: {
        type: 'string',
        pattern: TARGET_PATTERN,
        default: 'body',
        description: 'where the answer of the called route goes: body, status or vars.<name>',
      },
    },
  },
  compile(cfg, ctx) {
    const bodyExpr = cfg.body ? ctx.expr(cfg.body, ['body']) : undefined;
    const set = compileTarget(cfg.into);
    // read at run time: the engine fills services.callRoute only after every route compiled
    const services = ctx.services;
    return async (ex) => {
      let body = bodyExpr ? bodyExpr.evaluate(ex) : ex.body;
      if (isPromise(body)) body = await body;
      const r = await services.callRoute(cfg.route, {
        body,
        headers: ex.headers,
        user: ex.user,
        correlationId: ex.correlationId,
        signal: ex.signal,
        // the called route's exchange is a child of this step's span: one trace, one exchange in the console
        trace: ex.trace,
        // its steps go on timing this exchange's stretch of work (pipeline/slices.ts)
        sliceStart: ex.sliceStart,
      });
      set(ex, r.body);
    };
  },
  references(c) {
    const route = (c as { route?: unknown } | null)?.route;
    return c && typeof c === 'object' && typeof route === 'string' ? [{ to: 'route', name: route, at: ['route'] }] : [];
  },
  graph: (c, g) => ({
    label: `call ${g.text(c.route) ?? ''}`,
    target: { kind: 'route', name: g.text(c.route) ?? '?' },
  }),
  example: `id: example-to-direct
from:
  http:
    path: /examples/to-direct
steps:
  - to-direct:
      route: example-direct-add-fee   # the route of docs/examples/sources/direct.yaml
      body: "{ 'amount': body.amount }"
      into: vars.priced
  - set:
      values:
        body: vars.priced`,
});
