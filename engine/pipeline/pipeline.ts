// Runs compiled steps in order. Synchronous steps run without allocating promises, which keeps
// the per-exchange cost of a route close to hand-written code. A recorded exchange (`ex.trace` set
// while the engine's tracer is installed, and sampled) runs each step in its own span; otherwise one check.

import { trace, type Context } from '@opentelemetry/api';
import type { Exchange } from './exchange.ts';
import { recording, startStepSpan, endSpan, type EngineTracing } from './tracing.ts';
import { stepBody } from './tracing-detail.ts';

/** A compiled step. Returns nothing, or a promise when it has to wait. */
export type Step = (ex: Exchange) => void | Promise<void>;

export type Pipeline = (ex: Exchange) => void | Promise<void>;

/** `t`: the engine's tracing (EngineServices.tracing). */
export function pipeline(steps: Step[], t: EngineTracing): Pipeline {
  if (steps.length === 0) return () => {};
  if (steps.length === 1) {
    const only = steps[0];
    return (ex) => (t.tracer && recording(ex.trace) ? runTraced(t, steps, 0, ex, ex.trace!) : only(ex));
  }
  return (ex) => (t.tracer && recording(ex.trace) ? runTraced(t, steps, 0, ex, ex.trace!) : run(steps, 0, ex));
}

function run(steps: Step[], from: number, ex: Exchange): void | Promise<void> {
  for (let i = from; i < steps.length; i++) {
    if (ex.stopped) return;
    const r = steps[i](ex);
    if (r && typeof (r as Promise<void>).then === 'function') {
      return (r as Promise<void>).then(() => {
        // the exchange waited: what it does next is a new stretch of work (slices.ts)
        ex.sliceStart = undefined;
        return run(steps, i + 1, ex);
      });
    }
  }
}

/** As `run`, each step in a span under `parent`; the step sees its span as `ex.trace`. */
function runTraced(t: EngineTracing, steps: Step[], from: number, ex: Exchange, parent: Context): void | Promise<void> {
  for (let i = from; i < steps.length; i++) {
    if (ex.stopped) return;
    const span = startStepSpan(t, steps[i], i, parent);
    ex.trace = trace.setSpan(parent, span);
    stepBody(t, span, 'received', ex);
    let r: void | Promise<void>;
    try {
      r = steps[i](ex);
    } catch (e) {
      ex.trace = parent;
      endSpan(t, span, e);
      throw e;
    }
    if (r && typeof (r as Promise<void>).then === 'function') {
      return (r as Promise<void>).then(
        () => {
          ex.sliceStart = undefined;
          ex.trace = parent;
          stepBody(t, span, 'produced', ex);
          endSpan(t, span);
          return runTraced(t, steps, i + 1, ex, parent);
        },
        (e) => {
          ex.trace = parent;
          endSpan(t, span, e);
          throw e;
        },
      );
    }
    ex.trace = parent;
    stepBody(t, span, 'produced', ex);
    endSpan(t, span);
  }
}
