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
  /**
   * The step reads a variable a tuple may carry (a `#$name` of the expression): it runs in a frame
   * made from each tuple. Otherwise that frame would only add names the step never looks up, and
   * it runs in the enclosing one (one allocation less per item).
   */
  tupleFrame: boolean;
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
  // the first tuple step: each input item is a tuple {'@': item} (JSONata makes them first); they
  // are not made here, as the tuples this step makes carry nothing of them but what replaces '@'
  const first = tupleBindings === undefined;
  const bindings: any[] = first ? input : tupleBindings!;
  if (first) charge(input.length);
  const index = step.index;
  for (let ee = 0; ee < bindings.length; ee++) {
    charge();
    const binding = first ? undefined : bindings[ee];
    const context = first ? bindings[ee] : binding['@'];
    // a first tuple holds only '@', which no variable names: the enclosing frame serves
    let res = step.ev(context, binding !== undefined && step.tupleFrame ? new Frame(frame, frame.run, binding) : frame);
    if (typeof res === 'undefined') continue;
    if (!Array.isArray(res)) res = [res];
    charge(res.length);
    for (let bb = 0; bb < res.length; bb++) {
      // JSONata's tuples have no prototype; ours are plain objects (faster to make and read):
      // they are only read by own keys, and `$__proto__` is never bound (checkBindable)
      const tuple: any = {};
      if (binding === undefined) tuple['@'] = context;
      else for (const key in binding) tuple[key] = binding[key];
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
  // a Map rather than JSONata's object: a group-by over thousands of items made a dictionary whose
  // Object.keys cost more than the grouping; the keys are taken in an object's order (ownKeysOrder)
  const groups = new Map<string, { data: unknown; exprIndex: number }>();
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
      const group = groups.get(key);
      if (group !== undefined) {
        if (group.exprIndex !== pairIndex)
          throw new FastJsonataError('D1009', { value: key }).locate(position, undefined);
        group.data = append(group.data, item);
      } else {
        groups.set(key, { data: item, exprIndex: pairIndex });
      }
    }
  }
  for (const key of ownKeysOrder(groups)) {
    charge();
    const entry = groups.get(key)!;
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

/**
 * The keys of a Map in the order Object.keys would list them had they been an object's, set in
 * the same order: array indices ('0', '17', canonical and below 2^32 - 1) first, ascending, then
 * the others as inserted.
 */
function ownKeysOrder(map: Map<string, unknown>): Iterable<string> {
  let indices: string[] | undefined;
  for (const key of map.keys()) if (isArrayIndex(key)) (indices ??= []).push(key);
  if (indices === undefined) return map.keys();
  indices.sort((a, b) => Number(a) - Number(b));
  const rest: string[] = [];
  for (const key of map.keys()) if (!isArrayIndex(key)) rest.push(key);
  return [...indices, ...rest];
}

function isArrayIndex(key: string): boolean {
  const c = key.charCodeAt(0);
  // most keys settle on their first character
  if (!(c >= 0x30 && c <= 0x39)) return false;
  return /^(?:0|[1-9]\d*)$/.test(key) && Number(key) < 4294967295;
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
