// Tuple streams and grouping of the fast evaluator, ported from jsonata 2.x: a path with `#$i`
// positional bindings is evaluated as a stream of tuples, each carrying its context item ('@')
// and the variables bound so far (evaluateTupleStep, evaluateStages' index stage), and group-by
// `path{key: value}` and object constructors group items, or the tuples of a stream
// (evaluateGroupExpression, reduceTupleStream).

import { FastJsonataError } from './errors.ts';
import { charge } from './budget.ts';
import { Frame, type Ev } from './frame.ts';
import { append, keysOf, nullObject, seq, seq1, type Seq } from './values.ts';

/** A predicate or index stage of a step, over the step's whole result. */
export type Filter = (input: any, frame: Frame) => any;

/** What a tuple step needs of a compiled step. */
export interface TupleStep {
  ev: Ev;
  stages: Filter[] | undefined;
  /** the variable `#$name` binds to the position of each result of this step */
  index: string | undefined;
}

/** Keys an object may not have (JSONata refuses to make them: D1013). */
export const RESERVED_KEYS = new Set(['_jsonata_lambda', '_jsonata_function']);

/** `#$i` after a predicate (evaluateStages): numbers the tuples that passed it. */
export function indexStage(name: string): Filter {
  return (input) => {
    for (let ee = 0; ee < input.length; ee++) input[ee][name] = ee;
    return input;
  };
}

/**
 * evaluateTupleStep: each tuple carries the context item ('@') and the variables bound so far
 * (`#$i`); the step runs on '@' with those variables in scope, and each of its results becomes a
 * new tuple. The step's predicates then filter the whole stream (not each item's results).
 */
export function evaluateTupleStep(step: TupleStep, input: any[], tupleBindings: Seq | undefined, frame: Frame): Seq {
  let result = seq();
  result.tupleStream = true;
  if (tupleBindings === undefined) {
    charge(input.length);
    tupleBindings = input.map((item) => ({ '@': item }));
  }
  const index = step.index;
  for (let ee = 0; ee < tupleBindings.length; ee++) {
    charge();
    const binding = tupleBindings[ee];
    let res = step.ev(binding['@'], new Frame(frame, frame.run, binding));
    if (typeof res === 'undefined') continue;
    if (!Array.isArray(res)) res = [res];
    charge(res.length);
    for (let bb = 0; bb < res.length; bb++) {
      // JSONata's tuples have no prototype; ours are plain objects (faster to make and read):
      // they are only read by own keys, and `$__proto__` is never bound (checkBindable)
      const tuple: any = {};
      for (const key in binding) tuple[key] = binding[key];
      if ((res as Seq).tupleStream) Object.assign(tuple, res[bb]);
      else {
        tuple['@'] = res[bb];
        if (index !== undefined) tuple[index] = bb;
      }
      result.push(tuple);
    }
  }
  if (step.stages) for (const stage of step.stages) result = stage(result, frame);
  return result;
}

/**
 * evaluateGroupExpression. Over a tuple stream (`entries#$i{...}`) keys are evaluated per tuple
 * with its variables in scope, and each group's tuples are merged (reduceTupleStream) to give the
 * value its context and variables.
 */
export function evaluateGroup(pairs: [Ev, Ev][], position: number, input: any, frame: Frame): Record<string, unknown> {
  const result: Record<string, unknown> = nullObject();
  const groups: Record<string, { data: unknown; exprIndex: number }> = Object.create(null);
  const reduce = !!(input && input.tupleStream);
  if (!Array.isArray(input)) input = seq1(input);
  // an empty input still produces the object (JSONata pushes into the array it was given)
  if (input.length === 0 && !reduce) input.push(undefined);
  for (let itemIndex = 0; itemIndex < input.length; itemIndex++) {
    charge();
    const item = input[itemIndex];
    const env = reduce ? new Frame(frame, frame.run, item) : frame;
    const context = reduce ? item['@'] : item;
    for (let pairIndex = 0; pairIndex < pairs.length; pairIndex++) {
      const key = pairs[pairIndex][0](context, env);
      if (typeof key !== 'string' && key !== undefined)
        throw new FastJsonataError('T1003', { value: key }).locate(position, undefined);
      if (key === undefined) continue;
      if (RESERVED_KEYS.has(key)) throw new FastJsonataError('D1013', { value: key }).locate(position, undefined);
      if (Object.prototype.hasOwnProperty.call(groups, key)) {
        if (groups[key].exprIndex !== pairIndex)
          throw new FastJsonataError('D1009', { value: key }).locate(position, undefined);
        groups[key].data = append(groups[key].data, item);
      } else {
        groups[key] = { data: item, exprIndex: pairIndex };
      }
    }
  }
  for (const key of keysOf(groups)) {
    charge();
    const entry = groups[key];
    let context = entry.data;
    let env = frame;
    if (reduce) {
      const tuple = reduceTupleStream(entry.data);
      context = tuple['@'];
      delete tuple['@'];
      env = new Frame(frame, frame.run, tuple);
    }
    const value = pairs[entry.exprIndex][1](context, env);
    if (typeof value !== 'undefined') result[key] = value;
  }
  return result;
}

/** reduceTupleStream: one tuple whose every variable appends the values of all of them. */
function reduceTupleStream(tupleStream: any): any {
  if (!Array.isArray(tupleStream)) return tupleStream;
  const result = nullObject();
  Object.assign(result, tupleStream[0]);
  for (let ii = 1; ii < tupleStream.length; ii++) {
    for (const prop of keysOf(tupleStream[ii])) result[prop] = append(result[prop], tupleStream[ii][prop]);
  }
  return result;
}
