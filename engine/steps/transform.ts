// transform: maps the exchange with a JSONata expression (inline or a .jsonata file), compiled
// when the route loads. The result replaces the body unless `into` names another target.
// `transform: <file>` is short for `transform: { file: <file> }`.

import { defineStep } from './step-kind.ts';
import { isPromise } from '../expressions/expressions.ts';
import { compileTarget, TARGET_PATTERN } from '../pipeline/targets.ts';
import { endOfStep, sliceStart } from '../pipeline/slices.ts';

interface TransformConfig {
  expression?: string;
  file?: string;
  into?: string;
}

export default defineStep<TransformConfig>({
  kind: 'transform',
  description:
    'Evaluates a JSONata expression against the exchange (body, headers, query, params, vars, user) and stores the result.',
  shorthand: 'file',
  schema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      expression: { type: 'string', description: 'inline JSONata' },
      file: {
        type: 'string',
        description: 'a .jsonata file: beside the route first, then from the project root (transforms/...)',
      },
      into: { type: 'string', pattern: TARGET_PATTERN, default: 'body', description: 'body, status or vars.<name>' },
    },
    oneOf: [{ required: ['expression'] }, { required: ['file'] }],
  },
  compile(cfg, ctx) {
    const expr =
      cfg.file !== undefined
        ? ctx.exprFile(
            cfg.file,
            ['file'],
            "a transform's file is a .jsonata file; an inline expression goes in transform: { expression: ... }",
          )
        : ctx.expr(cfg.expression, ['expression']);
    const set = compileTarget(cfg.into);
    return (ex) => {
      const started = sliceStart(ex);
      const v = expr.evaluate(ex);
      if (isPromise(v)) return v.then((r) => set(ex, r));
      set(ex, v);
      // a mapping over a big collection lets other exchanges run before the next step
      return endOfStep(ex, started);
    };
  },
  graph: (c, g) => {
    const file = g.text(c.file);
    return { label: `transform ${file?.split('/').pop() ?? 'expression'}`, ...(file ? { file } : {}) };
  },
  example: `id: example-transform
from:
  http:
    path: /examples/transform
steps:
  - transform:
      expression: "{ 'pair': body.buyCurrency & '/' & body.sellCurrency }"
      into: vars.request
  - transform:
      file: transforms/acme/exchange-rate.jsonata
      into: vars.rate
  # a string is the file: short for { file: ... }
  - transform: transforms/acme/exchange-rate.jsonata`,
});
