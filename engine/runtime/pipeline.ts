// Runs compiled steps in order. Synchronous steps run without allocating promises, which keeps
// the per-exchange cost of a route close to hand-written code. A recorded exchange (`ex.trace` set
// while a tracer is installed, and sampled) runs each step in its own span; otherwise one check.

import { trace, type Context } from '@opentelemetry/api';
import type { Step } from '../steps/step-kind.ts';
import type { Exchange } from './exchange.ts';
import { tracer, recording, startStepSpan, endSpan } from './tracing.ts';
import { stepBody } from './tracing-detail.ts';

export type Pipeline = (ex: Exchange) => void | Promise<void>;

export function pipeline(steps: Step[]): Pipeline {
  if (steps.length === 0) return () => {};
  if (steps.length === 1) {
    const only = steps[0];
    return (ex) => (tracer && recording(ex.trace) ? runTraced(steps, 0, ex, ex.trace!) : only(ex));
  }
  return (ex) => (tracer && recording(ex.trace) ? runTraced(steps, 0, ex, ex.trace!) : run(steps, 0, ex));
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

/** As `run`, each step in a span under `parent`; the step sees its span as `ex.trace`. */
function runTraced(steps: Step[], from: number, ex: Exchange, parent: Context): void | Promise<void> {
  for (let i = from; i < steps.length; i++) {
    if (ex.stopped) return;
    const span = startStepSpan(steps[i], i, parent);
    ex.trace = trace.setSpan(parent, span);
    stepBody(span, 'received', ex);
    let r: void | Promise<void>;
    try {
      r = steps[i](ex);
    } catch (e) {
      ex.trace = parent;
      endSpan(span, e);
      throw e;
    }
    if (r && typeof (r as Promise<void>).then === 'function') {
      return (r as Promise<void>).then(
        () => { ex.trace = parent; stepBody(span, 'produced', ex); endSpan(span); return runTraced(steps, i + 1, ex, parent); },
        (e) => { ex.trace = parent; endSpan(span, e); throw e; },
      );
    }
    ex.trace = parent;
    stepBody(span, 'produced', ex);
    endSpan(span);
  }
}
