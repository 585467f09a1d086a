// split: runs steps once per item of a list (one risk lookup per alert, one event per payment),
// each on its own copy of the exchange with the item as body; results are collected in order.

import { defineStep } from './step-kind.ts';
import { pipeline } from '../pipeline/pipeline.ts';
import { isPromise } from '../expressions/expressions.ts';
import { compileTarget, TARGET_PATTERN } from '../pipeline/targets.ts';
import { deriveExchange } from '../pipeline/exchange.ts';

interface SplitConfig {
  items: string;
  steps: unknown[];
  into?: string;
  parallel?: number;
}

export default defineStep<SplitConfig>({
  kind: 'split',
  description:
    'Runs steps for each item of a JSONata list (item as body, index in vars.index); collects the resulting bodies in order.',
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['items', 'steps'],
    properties: {
      items: { type: 'string', description: 'JSONata giving the list' },
      steps: {
        type: 'array',
        items: { $ref: '#/$defs/step' },
        description: 'run once per item, with the item as body; the body they leave is the result',
      },
      into: { type: 'string', pattern: TARGET_PATTERN, default: 'body', description: 'where the list of results goes' },
      parallel: { type: 'integer', minimum: 1, default: 1, description: 'items processed at once' },
    },
  },
  compile(cfg, ctx) {
    const items = ctx.expr(cfg.items, ['items']);
    const body = pipeline(ctx.steps(cfg.steps, ['steps']), ctx.services.tracing);
    const set = compileTarget(cfg.into);
    const parallel = cfg.parallel ?? 1;
    return async (ex) => {
      let list = items.evaluate(ex);
      if (isPromise(list)) list = await list;
      const arr: unknown[] = list === undefined || list === null ? [] : Array.isArray(list) ? list : [list];
      const results: unknown[] = new Array(arr.length);
      let next = 0;
      const worker = async () => {
        while (next < arr.length) {
          const i = next++;
          const sub = deriveExchange(ex, {
            body: arr[i],
            vars: { ...ex.vars, index: i, item: arr[i] },
            stopped: false,
          });
          await body(sub);
          results[i] = sub.body;
        }
      };
      await Promise.all(Array.from({ length: Math.min(parallel, arr.length) }, worker));
      set(ex, results);
    };
  },
  graph: (c, g) => ({
    label: `split ${g.oneLine(g.text(c.items) ?? '')}`,
    branches: [{ label: 'each item', steps: g.steps(c.steps, 'steps') }],
  }),
  example: `id: example-split
from:
  http:
    path: /examples/split
steps:
  - split:
      items: body.payments
      parallel: 4
      into: vars.results
      steps:
        - set:
            values:
              body: "{ 'index': vars.index, 'reference': body.reference }"
  - set:
      values:
        body: "{ 'count': $count(vars.results), 'results': vars.results }"`,
});
