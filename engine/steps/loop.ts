// loop: runs steps again and again on the same exchange while a JSONata condition holds (Camel's
// `loop` with `doWhile`), bounded by `max-iterations`. Reading every page of a paged vendor list
// is the main use: a `to-http` for page `vars.iteration + 1`, a `set` appending the page, and
// `while` looking at the vendor's `next` link.

import { defineStep } from './step-kind.ts';
import { pipeline } from '../pipeline/pipeline.ts';
import { PlatformError } from '../core/errors.ts';
import { isPromise } from '../expressions/expressions.ts';
import { truthy } from './truthy.ts';

interface LoopConfig {
  while: string;
  steps: unknown[];
  'max-iterations'?: number | string;
  'on-limit'?: 'fail' | 'stop';
  counter?: string;
}

export default defineStep<LoopConfig>({
  kind: 'loop',
  description:
    'Runs steps repeatedly on the same exchange while a JSONata condition (checked before each pass) is truthy; vars.iteration counts the passes done.',
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['while', 'steps'],
    properties: {
      while: {
        type: 'string',
        description:
          'JSONata checked before each pass; vars.iteration is the number of passes done (0 before the first)',
      },
      steps: { type: 'array', items: { $ref: '#/$defs/step' }, description: 'run on the same exchange in each pass' },
      'max-iterations': {
        anyOf: [
          { type: 'integer', minimum: 1 },
          { type: 'string', pattern: '^[1-9]\\d*$' },
        ],
        default: 100,
        description: 'upper bound of passes (e.g. the most pages read from a vendor)',
      },
      'on-limit': {
        enum: ['fail', 'stop'],
        default: 'fail',
        description: 'fail: a 502 `vendor` error (a list that never ends); stop: continue with what was gathered',
      },
      counter: {
        type: 'string',
        pattern: '^[A-Za-z_][A-Za-z0-9_]*$',
        default: 'iteration',
        description: 'name of the vars entry counting passes',
      },
    },
  },
  compile(cfg, ctx) {
    const cond = ctx.expr(cfg.while, ['while']);
    const body = pipeline(ctx.steps(cfg.steps, ['steps']), ctx.services.tracing);
    const max = Number(cfg['max-iterations'] ?? 100);
    if (!Number.isInteger(max) || max < 1)
      ctx.fail(`max-iterations must be a positive integer, got '${cfg['max-iterations']}'`, ['max-iterations']);
    const onLimit = cfg['on-limit'] ?? 'fail';
    const counter = cfg.counter ?? 'iteration';
    return async (ex) => {
      for (let i = 0; ; i++) {
        ex.vars[counter] = i;
        let go = cond.evaluate(ex);
        if (isPromise(go)) go = await go;
        if (!truthy(go)) return;
        if (i >= max) {
          if (onLimit === 'stop') {
            ex.log.warn({ iterations: i }, 'loop stopped at max-iterations');
            return;
          }
          throw new PlatformError({
            kind: 'vendor',
            detail: `the loop did not end within ${max} iterations (while: ${cfg.while})`,
          });
        }
        const r = body(ex);
        if (isPromise(r)) await r;
        if (ex.stopped) return;
      }
    };
  },
  graph: (c, g) => ({
    label: `loop while ${g.oneLine(g.text(c.while) ?? '')}`,
    branches: [{ label: 'each pass', steps: g.steps(c.steps, 'steps') }],
  }),
  example: `id: example-loop
from:
  http:
    path: /examples/loop
steps:
  - set:
      values:
        vars.pages: "[]"
  - loop:
      while: "vars.iteration < 3"
      max-iterations: 10
      on-limit: stop
      steps:
        - set:
            values:
              vars.pages: "$append(vars.pages, [vars.iteration])"
  - set:
      values:
        body: "{ 'pages': vars.pages }"`,
});
