// Variable scopes and lambda values of the fast evaluator: JSONata's createFrame,
// createFrameFromTuple, evaluateLambda and apply()/applyProcedure() with its tail-call trampoline.

import { BAIL, FastJsonataError } from './errors.ts';
import type { HofFn, RunState } from './builtins.ts';
import { looksLikeThunk } from './values.ts';

/** A compiled expression: (context value, variable frame) => JSONata value. */
export type Ev = (input: any, frame: Frame) => any;

/** (input, frame, value piped in by `~>`, context for signature defaults) => result */
export type CallCore = (input: any, frame: Frame, piped: unknown, context: unknown) => unknown;

/** Variable scope: JSONata's createFrame. The outermost frame reads the caller's bindings. */
export class Frame {
  constructor(
    readonly parent: Frame | undefined,
    readonly run: RunState,
    /**
     * Own variables. A frame made from a tuple of a `#$i` path reads the tuple itself: JSONata
     * copies its keys into a new frame, and nothing binds into that frame or changes the tuple
     * while the frame is in use (blocks bind in a frame of their own), so reading it is the same.
     */
    private vars: Record<string, unknown> | undefined = undefined,
  ) {}

  /** Forgets the frame's own variables (a frame used for another evaluation). */
  clear(): void {
    this.vars = undefined;
  }

  bind(name: string, value: unknown): void {
    // a plain object, read by own keys only (lookup), as tuples are: Object.create(null) starts in
    // V8's slow dictionary mode and cost a block of a few bindings more than the rest of its work;
    // `$__proto__` is never bound (checkBindable)
    (this.vars ??= {})[name] = value;
  }

  /** The variable's value; `missing` (undefined unless given) when no frame and no binding has it. */
  lookup(name: string, missing?: unknown): unknown {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- walks the chain of frames from this one
    for (let f: Frame | undefined = this; f; f = f.parent) {
      if (f.vars !== undefined && Object.prototype.hasOwnProperty.call(f.vars, name)) return f.vars[name];
    }
    // JSONata copies Object.keys(bindings) into its frame: own enumerable properties only
    const b = this.run.bindings;
    return b !== undefined && Object.prototype.propertyIsEnumerable.call(b, name) ? b[name] : missing;
  }
}

/** What Frame.lookup returns for a name nothing binds, when asked to tell it from undefined. */
export const NOT_BOUND: unique symbol = Symbol('not bound');

/** A lambda value (evaluateLambda): an argument of $map/$filter, or bound to a variable and called. */
export class LambdaProc {
  readonly _jsonata_lambda = true;
  constructor(
    readonly input: unknown,
    readonly frame: Frame,
    readonly params: string[],
    readonly body: Ev,
  ) {}
}

/** A tail call in a lambda body: JSONata returns a thunk and runs it in apply()'s trampoline. */
export class Thunk {
  readonly _jsonata_lambda = true;
  readonly thunk = true;
  constructor(
    private readonly call: CallCore,
    private readonly input: unknown,
    private readonly frame: Frame,
  ) {}

  run(): unknown {
    // the trampoline calls with input null, so a missing argument takes null as its context
    return this.call(this.input, this.frame, undefined, null);
  }
}

/** applyProcedure: the parameters bound in a frame below the lambda's own, the body on its input. */
function applyProcedure(proc: LambdaProc, args: unknown[]): unknown {
  const frame = new Frame(proc.frame, proc.frame.run);
  for (let i = 0; i < proc.params.length; i++) frame.bind(proc.params[i], args[i]);
  return proc.body(proc.input, frame);
}

/** apply()'s trampoline: runs the tail calls a lambda body returned. */
function trampoline(result: unknown): unknown {
  while (looksLikeThunk(result)) {
    if (!(result instanceof Thunk)) throw BAIL; // a lambda-looking value from the data
    result = result.run();
  }
  return result;
}

/** Calls a lambda the way apply() -> applyProcedure() does, trampolining tail calls. */
function invokeLambda(proc: LambdaProc, args: unknown[]): unknown {
  return trampoline(applyProcedure(proc, args));
}

/**
 * `$f(args)` where $f holds a lambda (evaluateFunction -> apply): an error of the body takes the
 * call's position (applyInner sets it from the procedure) and, if it has none, the name as token;
 * errors of the tail calls run by the trampoline keep their own.
 */
export function callLambda(proc: LambdaProc, args: unknown[], position: number, name: string): unknown {
  let result: unknown;
  try {
    result = applyProcedure(proc, args);
  } catch (err) {
    if (err instanceof FastJsonataError) err.relocate(position, name);
    throw err;
  }
  return trampoline(result);
}

/** evaluateFunction wraps function arguments in a closure that carries the arity. */
export function wrapLambda(proc: LambdaProc): HofFn {
  const fn = ((...args: unknown[]) => invokeLambda(proc, args)) as HofFn;
  fn.arity = proc.params.length;
  return fn;
}
