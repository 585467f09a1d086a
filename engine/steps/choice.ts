// choice: the first `when` whose condition is truthy runs its steps; otherwise `otherwise`.
// A branch may `stop` the route after its steps (the exchange answers with what it has).

import { defineStep, type Step } from './step-kind.ts';
import { pipeline, type Pipeline } from '../pipeline/pipeline.ts';
import { isPromise, type Expression } from '../expressions/expressions.ts';
import type { Exchange } from '../pipeline/exchange.ts';
import { truthy } from './truthy.ts';
import { counted } from '../pipeline/coverage.ts';

interface Branch {
  condition: string;
  steps: unknown[];
  stop?: boolean;
}
interface ChoiceConfig {
  when: Branch[];
  otherwise?: unknown[];
}

const stepsRef = { type: 'array', items: { $ref: '#/$defs/step' } };

export default defineStep<ChoiceConfig>({
  kind: 'choice',
  description: 'Runs the steps of the first branch whose JSONata condition is truthy, else the otherwise steps.',
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['when'],
    properties: {
      when: {
        type: 'array',
        minItems: 1,
        description: 'branches, tried in order; the first whose condition is truthy runs',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['condition', 'steps'],
          properties: {
            condition: { type: 'string', description: 'JSONata; truthy selects the branch' },
            steps: { ...stepsRef, description: 'run when the condition is truthy' },
            stop: {
              type: 'boolean',
              default: false,
              description: 'end the route after this branch: the exchange answers with what it has',
            },
          },
        },
      },
      otherwise: { ...stepsRef, description: 'run when no condition is truthy (nothing when absent)' },
    },
  },
  compile(cfg, ctx) {
    // with coverage asked for (route tests), a branch counts when it is taken, steps or none; the
    // report shows a condition as written in the file (placeholders unresolved), not as compiled
    const branch = (p: Pipeline, at: (string | number)[], label: string): Pipeline => {
      const point = ctx.point('branch', at, label);
      return point ? counted(p, point) : p;
    };
    const branches: [Expression, Pipeline, boolean][] = cfg.when.map((b, i) => [
      ctx.expr(b.condition, ['when', i, 'condition']),
      branch(pipeline(ctx.steps(b.steps, ['when', i, 'steps']), ctx.services.tracing), ['when', i], 'when'),
      b.stop === true,
    ]);
    const otherwise: Pipeline | undefined = cfg.otherwise
      ? branch(pipeline(ctx.steps(cfg.otherwise, ['otherwise']), ctx.services.tracing), ['otherwise'], 'otherwise')
      : undefined;
    const runBranch = (ex: Exchange, p: Pipeline, stop: boolean): void | Promise<void> => {
      const r = p(ex);
      if (!stop) return r;
      if (isPromise(r))
        return r.then(() => {
          ex.stopped = true;
        });
      ex.stopped = true;
    };
    const pick = (ex: Exchange, from: number): void | Promise<void> => {
      for (let i = from; i < branches.length; i++) {
        const [cond, p, stop] = branches[i];
        const v = cond.evaluate(ex);
        if (isPromise(v)) return v.then((r) => (truthy(r) ? runBranch(ex, p, stop) : pick(ex, i + 1)));
        if (truthy(v)) return runBranch(ex, p, stop);
      }
      return otherwise?.(ex);
    };
    const step: Step = (ex) => pick(ex, 0);
    return step;
  },
  graph(c, g) {
    const branches = (Array.isArray(c.when) ? c.when : []).map((w, i) => {
      const x = (w && typeof w === 'object' && !Array.isArray(w) ? w : {}) as Partial<Branch>;
      const label = `${g.oneLine(g.text(x.condition) ?? '?')}${x.stop ? ' (stop)' : ''}`;
      return { label, steps: g.steps(x.steps, `when[${i}].steps`) };
    });
    if (c.otherwise !== undefined) branches.push({ label: 'otherwise', steps: g.steps(c.otherwise, 'otherwise') });
    return { label: 'choice', branches };
  },
  example: `id: example-choice
from:
  http:
    path: /examples/choice
steps:
  - choice:
      when:
        - condition: "body.amount > 10000"
          steps:
            - set: { values: { vars.review: "true" } }
        - condition: "body.status = 'CANCELLED'"
          stop: true   # answer now, skip the steps after the choice
          steps:
            - set: { values: { body: "{ 'status': 'ignored' }" } }
      otherwise:
        - log: { message: regular order }
  # one branch, no otherwise: \`if:\` beside any step says the same
  - if: "body.priority = 'high'"
    log: { message: high priority order }
  - set:
      values:
        body: "{ 'review': vars.review = true }"`,
});
