// Runs compiled steps in order. Synchronous steps run without allocating promises, which keeps
// the per-exchange cost of a route close to hand-written code.

import type { Step } from '../steps/step-kind.ts';
import type { Exchange } from './exchange.ts';

export type Pipeline = (ex: Exchange) => void | Promise<void>;

export function pipeline(steps: Step[]): Pipeline {
  if (steps.length === 0) return () => {};
  if (steps.length === 1) return steps[0];
  return (ex) => run(steps, 0, ex);
}

function run(steps: Step[], from: number, ex: Exchange): void | Promise<void> {
  for (let i = from; i < steps.length; i++) {
    if (ex.stopped) return;
    const r = steps[i](ex);
    if (r && typeof (r as Promise<void>).then === 'function') {
      return (r as Promise<void>).then(() => run(steps, i + 1, ex));
    }
  }
}
