// `if: <JSONata>` beside a step's kind: the step runs only when the condition is truthy, as the
// one branch of a choice without `otherwise` would; the console draws it as that choice.

import choice from './choice.ts';
import { truthy } from './truthy.ts';
import { isPromise, type Expression } from '../expressions/expressions.ts';
import type { GraphNode, Step } from './step-kind.ts';

/** `step` run only when `guard` is truthy. */
export function guarded(guard: Expression, step: Step): Step {
  return (ex) => {
    const v = guard.evaluate(ex);
    if (isPromise(v)) return v.then((r) => (truthy(r) ? step(ex) : undefined));
    return truthy(v) ? step(ex) : undefined;
  };
}

/** The console's node of a guarded step: a choice whose one branch, labelled with the condition, holds it. */
export function guardNode(path: string, condition: string, node: GraphNode): GraphNode {
  return { kind: choice.kind, path, label: 'if', branches: [{ label: condition, steps: [node] }] };
}
