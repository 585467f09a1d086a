// Compiles a JSONata AST into synchronous closures. Each evaluator is a port of the matching
// function in jsonata 2.x jsonata.js (named in the comments), with the async plumbing removed;
// the value model and the order of checks are kept so results and errors are the same.
// Anything outside the supported subset throws Unsupported while compiling.

import { BAIL, FastJsonataError, Unsupported } from './errors.ts';
import { charge, enter, maxRange, newBudget, restore } from './budget.ts';
import {
  BUILTINS,
  JSONATA_FUNCTION_NAMES,
  isRegexMatcher,
  regexMatcher,
  type Builtin,
  type RunState,
} from './builtins.ts';
import { callLambda, Frame, LambdaProc, NOT_BOUND, Thunk, wrapLambda, type CallCore, type Ev } from './frame.ts';
import { evaluateGroup, evaluateTupleStep, indexStage, RESERVED_KEYS, type Filter } from './streams.ts';
import { parseSignature, type Signature } from './signature.ts';
import {
  append,
  boolize,
  flatten,
  isArrayOfNumbers,
  isDeepEqual,
  isFunction,
  isIterable,
  isNumeric,
  isPromise,
  looksLikeThunk,
  isSequence,
  keysOf,
  lookup,
  nullObject,
  seq,
  seq1,
  toBoolean,
  toJsonataString,
  type Seq,
} from './values.ts';

export type CustomFunctions = Record<string, { fn: (...a: any[]) => unknown; signature?: string }>;

const NODE_KEYS = new Set([
  'type',
  'value',
  'position',
  'predicate',
  'stages',
  'keepArray',
  'keepSingletonArray',
  'consarray',
  'steps',
  'lhs',
  'rhs',
  'expressions',
  'expression',
  'condition',
  'then',
  'else',
  'procedure',
  'arguments',
  'body',
  'thunk',
  'group',
  // `#$i` positional binding on a path step (compilePath checks where they are)
  'index',
  'tuple',
]);

/** Rejects nodes carrying anything we do not emulate (focus `@`, parent `%`, signatures...). */
function checkKeys(node: any): void {
  if (node === null || typeof node !== 'object') throw new Unsupported('not a node');
  for (const key of Object.keys(node)) {
    if (NODE_KEYS.has(key)) continue;
    // the parser leaves `name: undefined` on calls and `signature: undefined` on lambdas without one
    if ((key === 'name' || key === 'signature') && node[key] === undefined) continue;
    throw new Unsupported(`node property ${key}`);
  }
}

type Target =
  | { kind: 'builtin'; name: string; builtin: Builtin }
  | { kind: 'custom'; name: string; fn: (...a: any[]) => unknown; signature?: Signature };

/** Compile-time state shared by one expression. */
class Ctx {
  /** names of every function the expression calls: a binding with one of these names shadows it */
  readonly called = new Set<string>();
  inLambda = false;

  constructor(
    private readonly functions: CustomFunctions,
    /** every variable a `#$name` of the expression binds: the names a tuple may carry besides '@' */
    readonly tupleVars: ReadonlySet<string>,
    /**
     * Variables some `$f := function(...) {...}` binds: they may only be called (`$f(x)`) or passed
     * to $map/$filter, outside lambda bodies, so a lambda value never reaches a result and no
     * lambda can call itself (the fast path has no recursion to bound).
     */
    readonly lambdaVars: ReadonlySet<string>,
    /** function names the expression binds (`$max := ...`) and never calls: plain variables here */
    private readonly shadowable: ReadonlySet<string>,
  ) {}

  isShadowable(name: string): boolean {
    return this.shadowable.has(name);
  }

  isFunctionName(name: string): boolean {
    return JSONATA_FUNCTION_NAMES.has(name) || Object.prototype.hasOwnProperty.call(this.functions, name);
  }

  /**
   * Names we bind (`:=`, lambda parameters) must not hide functions or the context/root variables,
   * and a variable holding a lambda holds nothing else.
   */
  checkBindable(name: unknown, lambda = false): string {
    if (
      typeof name !== 'string' ||
      name === '' ||
      name === '$' ||
      name === '__proto__' ||
      (this.isFunctionName(name) && !this.shadowable.has(name)) ||
      this.lambdaVars.has(name) !== lambda
    ) {
      throw new Unsupported(`binding $${String(name)}`);
    }
    return name;
  }

  /** Registered functions are bound after the built-ins, so they win (registerFunction). */
  resolve(name: unknown): Target {
    if (typeof name !== 'string') throw new Unsupported('procedure');
    const custom = Object.prototype.hasOwnProperty.call(this.functions, name) ? this.functions[name] : undefined;
    this.called.add(name);
    if (custom) {
      return {
        kind: 'custom',
        name,
        fn: custom.fn,
        signature: custom.signature ? parseSignature(custom.signature) : undefined,
      };
    }
    const builtin = Object.prototype.hasOwnProperty.call(BUILTINS, name) ? BUILTINS[name] : undefined;
    if (!builtin) throw new Unsupported(`function $${name}`);
    return { kind: 'builtin', name, builtin };
  }
}

// ---------------------------------------------------------------------------------------------
// evaluate(): the per-node wrapper (predicates, keepArray, singleton-sequence collapse)
// ---------------------------------------------------------------------------------------------

/**
 * Where a node is: a value, a statement of a block whose value is discarded, or the statement
 * that gives a block (or the whole expression) its value. Bindings are only emulated as statements.
 */
type Place = 'value' | 'statement' | 'result';

function compileNode(node: any, c: Ctx, place: Place = 'value', step = false): Ev {
  checkKeys(node);
  // `#$i` marks path steps only; on anything else it comes with constructs we do not emulate
  if (!step && (node.tuple !== undefined || node.index !== undefined)) throw new Unsupported('tuple');
  const inner = compileInner(node, c, place);
  return finish(node, inner, c);
}

function finish(node: any, inner: Ev, c: Ctx): Ev {
  const preds = node.predicate === undefined ? undefined : compileStages(node.predicate, c);
  const keepArray = !!node.keepArray;
  // a path groups its own result (evaluatePath); any other node after its predicates (evaluate)
  const group = node.group !== undefined && node.type !== 'path' ? compileGroup(node.group, c) : undefined;
  const literal = node.type === 'string' || node.type === 'number' || node.type === 'value';
  if (literal && !preds && !keepArray && !group) return inner; // a primitive is never a sequence
  if ((settled(node) || COLLAPSING.has(inner)) && !preds && !keepArray && !group) return inner;
  if (group) {
    return (input, frame) => {
      let result = inner(input, frame);
      if (preds) for (const p of preds) result = p(result, frame);
      return group(result, frame);
    };
  }
  if (!preds && !keepArray) {
    return (input, frame) => {
      const result = inner(input, frame);
      // the array test first: a flag read off a string or number goes through its prototype
      return Array.isArray(result) && (result as Seq).sequence === true && !(result as Seq).tupleStream
        ? collapse(result)
        : result;
    };
  }
  return (input, frame) => {
    let result = inner(input, frame);
    if (preds) for (const p of preds) result = p(result, frame);
    if (result && isSequence(result) && !result.tupleStream) {
      if (keepArray) result.keepSingleton = true;
      result = collapse(result);
    }
    return result;
  };
}

/** Evaluators that collapse their own result as evaluate() would (compileBuiltinValue). */
const COLLAPSING = new WeakSet<Ev>();

/**
 * Nodes whose value never needs evaluate()'s collapse: operators give numbers, strings and
 * booleans (a range gives a sequence: not listed), constructors plain arrays and objects, and a
 * condition or block the value of a node that was already collapsed (collapsing is idempotent).
 */
function settled(node: any): boolean {
  switch (node.type) {
    case 'binary':
      return node.value !== '..';
    case 'unary':
      return node.value === '-' || node.value === '[' || node.value === '{';
    case 'condition':
    case 'block':
      return true;
    default:
      return false;
  }
}

/** Empty sequence -> undefined, singleton -> its item unless marked keepSingleton. */
function collapse(result: Seq): unknown {
  if (result.length === 0) return undefined;
  if (result.length === 1) return result.keepSingleton ? result : result[0];
  return result;
}

function compileInner(node: any, c: Ctx, place: Place): Ev {
  switch (node.type) {
    case 'path':
      return compilePath(node, c);
    case 'binary':
      return compileBinary(node, c);
    case 'unary':
      return compileUnary(node, c);
    case 'name': {
      const name = stringValue(node);
      return (input) => lookup(input, name);
    }
    case 'string':
    case 'number':
    case 'value': {
      const value = node.value;
      if (value !== null && typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
        throw new Unsupported('literal');
      }
      return () => value;
    }
    case 'wildcard':
      return evaluateWildcard;
    case 'descendant':
      return evaluateDescendants;
    case 'variable':
      return compileVariable(node, c);
    case 'condition':
      return compileCondition(node, c);
    case 'block':
      return compileBlock(node, c);
    case 'bind':
      return compileBind(node, c, place);
    case 'function': {
      const direct = compileBuiltinValue(node, c);
      if (direct) return direct;
      const call = compileCall(node, c, false, false);
      return (input, frame) => call(input, frame, undefined, input);
    }
    case 'apply':
      return compileApply(node, c);
    case 'lambda':
      return compileThunk(node, c);
    default:
      throw new Unsupported(`node type ${node.type}`);
  }
}

function stringValue(node: any): string {
  if (typeof node.value !== 'string') throw new Unsupported('name');
  return node.value;
}

// ---------------------------------------------------------------------------------------------
// Paths: evaluatePath / evaluateStep / evaluateFilter
// ---------------------------------------------------------------------------------------------

interface Step {
  ev: Ev;
  stages: Filter[] | undefined;
  consarray: boolean;
  /** `#$i` on this step (or an earlier one): the path is evaluated as a tuple stream from here */
  tuple: boolean;
  /** the variable `#$name` binds to the position of each result of this step */
  index: string | undefined;
  /** a plain field name with nothing else on the step: evaluated by evaluateNameStep */
  name: string | undefined;
  /** the step reads a variable a tuple may carry (TupleStep.tupleFrame) */
  tupleFrame: boolean;
}

function compileStages(stages: unknown, c: Ctx): Filter[] {
  if (!Array.isArray(stages)) throw new Unsupported('stages');
  return stages.map((stage: any) => {
    if (stage === null || typeof stage !== 'object') throw new Unsupported('stage');
    // `#$i` after a predicate (evaluateStages): numbers the tuples that passed it
    if (stage.type === 'index' && typeof stage.value === 'string') return indexStage(c.checkBindable(stage.value));
    if (stage.type !== 'filter') throw new Unsupported('stage');
    return compileFilter(stage.expr, c);
  });
}

function compilePath(node: any, c: Ctx): Ev {
  if (!Array.isArray(node.steps) || node.steps.length === 0) throw new Unsupported('path');
  // a path marked as a tuple carries ancestry (`%`), which is not emulated
  if (node.tuple !== undefined) throw new Unsupported('path tuple');
  const simple = simpleNamePath(node);
  const steps: Step[] = node.steps.map((step: any) => {
    if (step !== null && typeof step === 'object' && step.index !== undefined && typeof step.index !== 'string')
      throw new Unsupported('index');
    return {
      ev: compileNode(step, c, 'value', true),
      stages: step.stages === undefined ? undefined : compileStages(step.stages, c),
      consarray: !!step.consarray,
      tuple: step.tuple === true,
      index: step.index === undefined ? undefined : c.checkBindable(step.index),
      name: isPlainName(step) && step.stages === undefined ? step.value : undefined,
      tupleFrame: readsAny(step, c.tupleVars),
    };
  });
  const firstIsVariable = node.steps[0].type === 'variable';
  const keepSingletonArray = !!node.keepSingletonArray;
  const group = node.group === undefined ? undefined : compileGroup(node.group, c);
  const last = steps.length - 1;

  const general: Ev = (input, frame) => {
    // evaluatePath: a variable first step makes the path absolute, so an array input is not mapped
    let inputSequence = Array.isArray(input) && !firstIsVariable ? input : seq1(input);
    let resultSequence: any;
    let isTupleStream = false;
    let tupleBindings: Seq | undefined;
    for (let i = 0; i < steps.length; i++) {
      const step = steps[i];
      if (step.tuple) isTupleStream = true;
      // an array constructor as the first step is evaluated once, not per context item
      if (i === 0 && step.consarray) resultSequence = step.ev(inputSequence, frame);
      else if (isTupleStream) tupleBindings = evaluateTupleStep(step, inputSequence, tupleBindings, frame);
      else if (step.name !== undefined) resultSequence = evaluateNameStep(step.name, inputSequence, i === last);
      else resultSequence = evaluateStep(step, inputSequence, frame, i === last);
      if (!isTupleStream && (typeof resultSequence === 'undefined' || resultSequence.length === 0)) break;
      inputSequence = resultSequence;
    }
    if (isTupleStream) {
      if (tupleBindings === undefined) throw BAIL; // JSONata fails on it with a TypeError
      resultSequence = seq();
      for (let i = 0; i < tupleBindings.length; i++) resultSequence.push(tupleBindings[i]['@']);
    }
    if (keepSingletonArray) {
      if (Array.isArray(resultSequence) && (resultSequence as Seq).cons && !(resultSequence as Seq).sequence) {
        resultSequence = seq1(resultSequence);
      }
      resultSequence.keepSingleton = true;
    }
    if (group) resultSequence = group(isTupleStream ? tupleBindings : resultSequence, frame);
    return resultSequence;
  };
  if (simple) return simplePathEvaluator(simple, general);
  const variable = variablePath(node, c);
  return variable ? variablePathEvaluator(variable.name, variable.names, general) : general;
}

function isPlainName(step: any): boolean {
  return (
    step.type === 'name' &&
    typeof step.value === 'string' &&
    Object.keys(step).every((k) => k === 'type' || k === 'value' || k === 'position')
  );
}

/**
 * evaluateStep for a plain name, in one pass: each item's field (evaluate() collapsing it), then
 * the results flattened one level, the last step keeping a single array value as it is.
 */
function evaluateNameStep(name: string, input: any, lastStep: boolean): any {
  const resultSequence = seq();
  let count = 0;
  let only: any;
  for (let i = 0; i < input.length; i++) {
    charge();
    let res = lookup(input[i], name);
    if (Array.isArray(res) && (res as Seq).sequence === true && !(res as Seq).tupleStream) res = collapse(res);
    if (typeof res === 'undefined') continue;
    if (++count === 1) only = res;
    if (!Array.isArray(res) || (res as Seq).cons) resultSequence.push(res);
    else {
      charge(res.length);
      for (let j = 0; j < res.length; j++) resultSequence.push(res[j]);
    }
  }
  if (lastStep && count === 1 && Array.isArray(only) && !isSequence(only)) return only;
  return resultSequence;
}

/** `$var.a.b`: a plain variable (not `$`, `$$`, a function or a lambda) and plain names. */
function variablePath(node: any, c: Ctx): { name: string; names: string[] } | undefined {
  if (node.keepSingletonArray || node.predicate !== undefined || node.keepArray || node.group !== undefined)
    return undefined;
  const [first, ...rest] = node.steps;
  if (
    first.type !== 'variable' ||
    typeof first.value !== 'string' ||
    !Object.keys(first).every((k) => k === 'type' || k === 'value' || k === 'position')
  )
    return undefined;
  const name: string = first.value;
  if (
    name === '' ||
    name === '$' ||
    c.isFunctionName(name) ||
    c.lambdaVars.has(name) ||
    rest.length === 0 ||
    !rest.every(isPlainName)
  )
    return undefined;
  return { name, names: rest.map((step: any) => step.value) };
}

/** As simplePathEvaluator, from the variable's value: a variable first step is evaluated once. */
function variablePathEvaluator(variable: string, names: string[], general: Ev): Ev {
  const last = names.length - 1;
  return (input, frame) => {
    const start: any = frame.lookup(variable);
    if (start === undefined) return undefined;
    if (Array.isArray(start)) return general(input, frame);
    return walkNames(start, names, last, input, frame, general);
  };
}

function evaluateStep(step: Step, input: any, frame: Frame, lastStep: boolean): any {
  const result = seq();
  for (let i = 0; i < input.length; i++) {
    charge();
    let res = step.ev(input[i], frame);
    if (step.stages) for (const stage of step.stages) res = stage(res, frame);
    if (typeof res !== 'undefined') result.push(res);
  }
  // the last step keeps a single array value as it is (so `body.items` returns the array)
  if (lastStep && result.length === 1 && Array.isArray(result[0]) && !isSequence(result[0])) return result[0];
  const resultSequence = seq();
  result.forEach((res) => {
    if (!Array.isArray(res) || (res as Seq).cons) resultSequence.push(res);
    else {
      charge(res.length);
      res.forEach((val) => resultSequence.push(val));
    }
  });
  return resultSequence;
}

/** Field names of a path made only of plain names (`body.buyCurrency`), or undefined. */
function simpleNamePath(node: any): string[] | undefined {
  if (node.keepSingletonArray || node.predicate !== undefined || node.keepArray || node.group !== undefined)
    return undefined;
  const names: string[] = [];
  for (const step of node.steps) {
    if (!isPlainName(step)) return undefined;
    names.push(step.value);
  }
  return names;
}

/**
 * Field access without sequences while no arrays are met: for objects and scalars the general
 * algorithm builds one-item sequences that collapse back to the value, so walking the fields
 * gives the same result. Arrays (mapping, flattening, sequences in the data) go the general way.
 */
function simplePathEvaluator(names: string[], general: Ev): Ev {
  const last = names.length - 1;
  if (last === 0) {
    // one name (a field of the context item, the commonest path of all): walkNames' steps for it
    const name = names[0];
    return (input, frame) => {
      if (Array.isArray(input)) return general(input, frame);
      if (
        input === null ||
        typeof input !== 'object' ||
        input._jsonata_function === true ||
        input._jsonata_lambda === true ||
        !Object.prototype.hasOwnProperty.call(input, name)
      )
        return undefined;
      const v = input[name];
      return Array.isArray(v) && isSequence(v) ? general(input, frame) : v;
    };
  }
  return (input, frame) =>
    Array.isArray(input) ? general(input, frame) : walkNames(input, names, last, input, frame, general);
}

/** The fields `names` from `cur` on, while no arrays are met (simplePathEvaluator says why). */
function walkNames(cur: any, names: string[], last: number, input: any, frame: Frame, general: Ev): any {
  for (let i = 0; i <= last; i++) {
    if (cur === null || typeof cur !== 'object' || cur._jsonata_function === true || cur._jsonata_lambda === true)
      return undefined;
    if (!Object.prototype.hasOwnProperty.call(cur, names[i])) return undefined;
    const v = cur[names[i]];
    if (v === undefined) return undefined;
    if (Array.isArray(v)) return i === last && !isSequence(v) ? v : general(input, frame);
    cur = v;
  }
  return cur;
}

/** evaluateFilter: a numeric literal indexes; otherwise keep items whose predicate is true or matches their index. */
function compileFilter(predNode: any, c: Ctx): Filter {
  if (predNode !== null && typeof predNode === 'object' && predNode.type === 'number') {
    const value = predNode.value;
    if (typeof value !== 'number') throw new Unsupported('index');
    return (input) => {
      let results: any = seq();
      if (input && input.tupleStream) results.tupleStream = true;
      if (!Array.isArray(input)) input = seq1(input);
      let index = Math.floor(value);
      if (index < 0) index = input.length + index;
      const item = input[index];
      if (isPromise(item)) throw BAIL; // JSONata awaits it
      if (typeof item !== 'undefined') {
        if (Array.isArray(item)) results = item;
        else results.push(item);
      }
      return results;
    };
  }
  const predicate = compileNode(predNode, c);
  // a predicate that reads no variable a tuple may carry sees the same values in the enclosing frame
  const tupleFrame = readsAny(predNode, c.tupleVars);
  return (input, frame) => {
    const results = seq();
    // a tuple stream: the predicate sees each tuple's item as context and its variables in scope
    const tuples = !!(input && input.tupleStream);
    if (tuples) results.tupleStream = true;
    if (!Array.isArray(input)) input = seq1(input);
    for (let index = 0; index < input.length; index++) {
      charge();
      const item = input[index];
      let res = tuples
        ? predicate(item['@'], tupleFrame ? new Frame(frame, frame.run, item) : frame)
        : predicate(item, frame);
      // a boolean (most predicates: comparisons, `and`, `$not`) keeps or drops the item, as below
      if (res === true) {
        results.push(item);
        continue;
      }
      if (res === false) continue;
      if (isNumeric(res)) res = [res];
      if (isArrayOfNumbers(res)) {
        res.forEach((ires: number) => {
          let ii = Math.floor(ires);
          if (ii < 0) ii = input.length + ii;
          if (ii === index) results.push(item);
        });
      } else if (toBoolean(res)) {
        results.push(item);
      }
    }
    return results;
  };
}

function evaluateWildcard(input: any): any {
  let results: any = seq();
  if (Array.isArray(input) && (input as Seq).outerWrapper && input.length > 0) input = input[0];
  if (input !== null && typeof input === 'object' && !isFunction(input)) {
    keysOf(input).forEach((key) => {
      let value = input[key];
      if (Array.isArray(value)) {
        value = flatten(value);
        results = append(results, value);
      } else {
        results.push(value);
      }
    });
    charge(results.length);
  }
  return results;
}

function evaluateDescendants(input: any): any {
  if (typeof input === 'undefined') return undefined;
  const resultSequence = seq();
  recurseDescendants(input, resultSequence);
  charge(resultSequence.length);
  return resultSequence.length === 1 ? resultSequence[0] : resultSequence;
}

function recurseDescendants(input: any, results: unknown[]): void {
  if (!Array.isArray(input)) results.push(input);
  if (Array.isArray(input)) {
    input.forEach((member) => recurseDescendants(member, results));
  } else if (input !== null && typeof input === 'object' && !isFunction(input)) {
    keysOf(input).forEach((key) => recurseDescendants(input[key], results));
  }
}

// ---------------------------------------------------------------------------------------------
// Operators: evaluateBinary and friends
// ---------------------------------------------------------------------------------------------

function compileBinary(node: any, c: Ctx): Ev {
  const op = node.value;
  const lhs = compileNode(node.lhs, c);
  const rhs = compileNode(node.rhs, c);
  switch (op) {
    case 'and':
      return (input, frame) => boolize(lhs(input, frame)) && boolize(booleanRhs(rhs, input, frame, node.position, op));
    case 'or':
      return (input, frame) => boolize(lhs(input, frame)) || boolize(booleanRhs(rhs, input, frame, node.position, op));
  }
  const apply = BINARY_OPS[op];
  if (!apply) throw new Unsupported(`operator ${op}`);
  const locate = (err: unknown): unknown => {
    if (err instanceof FastJsonataError) err.locate(node.position, op, true);
    return err;
  };
  // the commonest operators of predicates each in code of its own, so that the call of the
  // operation is not one call site shared by every operator of every expression
  switch (op) {
    case '=':
      return (input, frame) => {
        const l = lhs(input, frame);
        const r = rhs(input, frame);
        if (typeof l === 'undefined' || typeof r === 'undefined') return false;
        if (l === r) return true;
        try {
          return isDeepEqual(l, r);
        } catch (err) {
          throw locate(err);
        }
      };
    case '!=':
      return (input, frame) => {
        const l = lhs(input, frame);
        const r = rhs(input, frame);
        if (typeof l === 'undefined' || typeof r === 'undefined') return false;
        if (l === r) return false;
        try {
          return !isDeepEqual(l, r);
        } catch (err) {
          throw locate(err);
        }
      };
    case '<':
    case '<=':
    case '>':
    case '>=':
      return (input, frame) => {
        const l = lhs(input, frame);
        const r = rhs(input, frame);
        try {
          return comparison(l, r, op);
        } catch (err) {
          throw locate(err);
        }
      };
  }
  return (input, frame) => {
    const l = lhs(input, frame);
    const r = rhs(input, frame);
    try {
      return apply(l, r, op);
    } catch (err) {
      throw locate(err);
    }
  };
}

/** evaluateBinary: an error of the right operand of `and`/`or` takes the operator's position and token. */
function booleanRhs(rhs: Ev, input: any, frame: Frame, position: number, op: string): unknown {
  try {
    return rhs(input, frame);
  } catch (err) {
    if (err instanceof FastJsonataError) err.locate(position, op, true);
    throw err;
  }
}

type BinaryOp = (lhs: any, rhs: any, op: string) => unknown;

const BINARY_OPS: Record<string, BinaryOp> = {
  '+': numeric,
  '-': numeric,
  '*': numeric,
  '/': numeric,
  '%': numeric,
  '=': (l, r) => (typeof l === 'undefined' || typeof r === 'undefined' ? false : isDeepEqual(l, r)),
  '!=': (l, r) => (typeof l === 'undefined' || typeof r === 'undefined' ? false : !isDeepEqual(l, r)),
  '<': comparison,
  '<=': comparison,
  '>': comparison,
  '>=': comparison,
  '&': (l, r) =>
    (typeof l === 'undefined' ? '' : toJsonataString(l)!).concat(typeof r === 'undefined' ? '' : toJsonataString(r)!),
  '..': range,
  in: includes,
};

function numeric(lhs: any, rhs: any, op: string): number | undefined {
  if (typeof lhs !== 'undefined' && !isNumeric(lhs)) throw new FastJsonataError('T2001', { value: lhs });
  if (typeof rhs !== 'undefined' && !isNumeric(rhs)) throw new FastJsonataError('T2002', { value: rhs });
  if (typeof lhs === 'undefined' || typeof rhs === 'undefined') return undefined;
  switch (op) {
    case '+':
      return lhs + rhs;
    case '-':
      return lhs - rhs;
    case '*':
      return lhs * rhs;
    case '/':
      return lhs / rhs;
    default:
      return lhs % rhs;
  }
}

function comparison(lhs: any, rhs: any, op: string): boolean | undefined {
  const ltype = typeof lhs;
  const rtype = typeof rhs;
  const lcomparable = ltype === 'undefined' || ltype === 'string' || ltype === 'number';
  const rcomparable = rtype === 'undefined' || rtype === 'string' || rtype === 'number';
  if (!lcomparable || !rcomparable) {
    throw new FastJsonataError('T2010', { value: !(ltype === 'string' || ltype === 'number') ? lhs : rhs });
  }
  if (ltype === 'undefined' || rtype === 'undefined') return undefined;
  if (ltype !== rtype) throw new FastJsonataError('T2009', { value: lhs, value2: rhs });
  switch (op) {
    case '<':
      return lhs < rhs;
    case '<=':
      return lhs <= rhs;
    case '>':
      return lhs > rhs;
    default:
      return lhs >= rhs;
  }
}

function includes(lhs: any, rhs: any): boolean {
  if (typeof lhs === 'undefined' || typeof rhs === 'undefined') return false;
  if (!Array.isArray(rhs)) rhs = [rhs];
  charge(rhs.length);
  for (let i = 0; i < rhs.length; i++) if (rhs[i] === lhs) return true;
  return false;
}

const RANGE_SLICE = 65_536;

function range(lhs: any, rhs: any): Seq | undefined {
  if (typeof lhs !== 'undefined' && !Number.isInteger(lhs)) throw new FastJsonataError('T2003', { value: lhs });
  if (typeof rhs !== 'undefined' && !Number.isInteger(rhs)) throw new FastJsonataError('T2004', { value: rhs });
  if (typeof lhs === 'undefined' || typeof rhs === 'undefined' || lhs > rhs) return undefined;
  const size = rhs - lhs + 1;
  if (size > 1e7) throw new FastJsonataError('D2014', { value: size });
  // engine.expressions.maxRange: refused before anything is allocated (the error JSONata gives
  // for its own `sequence` bound; the engine's fallback evaluation refuses it the same way)
  if (size > maxRange()) throw new FastJsonataError('D2015', { value: maxRange() });
  // packed from the start: filling a large `new Array(size)` item by item starts in V8's slow
  // dictionary mode and stalls for long stretches between two clock checks
  const result: Seq = new Array(size).fill(0);
  // filled in slices, so that even the largest range stops at the time limit
  for (let from = 0; from < size; from += RANGE_SLICE) {
    const to = Math.min(size, from + RANGE_SLICE);
    charge(to - from);
    for (let index = from; index < to; index++) result[index] = lhs + index;
  }
  result.sequence = true;
  return result;
}

// ---------------------------------------------------------------------------------------------
// Constructors: evaluateUnary ('-', '[', '{') and evaluateGroupExpression
// ---------------------------------------------------------------------------------------------

function compileUnary(node: any, c: Ctx): Ev {
  switch (node.value) {
    case '-': {
      const expression = compileNode(node.expression, c);
      return (input, frame) => {
        const result = expression(input, frame);
        if (typeof result === 'undefined') return undefined;
        if (isNumeric(result)) return -result;
        throw new FastJsonataError('D1002', { value: result }).locate(node.position, '-');
      };
    }
    case '[':
      return compileArray(node, c);
    case '{':
      return compileObject(node, c);
    default:
      throw new Unsupported(`unary ${node.value}`);
  }
}

function compileArray(node: any, c: Ctx): Ev {
  if (!Array.isArray(node.expressions)) throw new Unsupported('array');
  const items: Ev[] = node.expressions.map((item: any) => compileNode(item, c));
  // an item that is itself an array constructor is nested, anything else is appended (flattened)
  const nested: boolean[] = node.expressions.map((item: any) => item.value === '[');
  const cons = !!node.consarray;
  return (input, frame) => {
    // the items in order, each appended as it comes: fn.append onto the fresh array (a copy per
    // item in JSONata) is a push, and an array value's items are pushed one by one
    const result: any[] = [];
    for (let i = 0; i < items.length; i++) {
      const value = items[i](input, frame);
      if (typeof value === 'undefined') continue;
      if (nested[i] || !Array.isArray(value)) result.push(value);
      else {
        charge(value.length);
        for (let j = 0; j < value.length; j++) result.push(value[j]);
      }
    }
    if (cons) Object.defineProperty(result, 'cons', { enumerable: false, configurable: false, value: true });
    return result;
  };
}

function compileObject(node: any, c: Ctx): Ev {
  if (!Array.isArray(node.lhs)) throw new Unsupported('object');
  const pairs = compilePairs(node.lhs, c);
  const general = (input: any, frame: Frame) => evaluateGroup(pairs, node.position, input, frame);
  const literalKeys = literalObjectKeys(node.lhs);
  if (!literalKeys) return general;
  const values = pairs.map((p) => p[1]);
  const shared = sharedSteps(
    node.lhs.map((pair: any[]) => (pair[1]?.type === 'path' ? simpleNamePath(pair[1]) : undefined)),
  );
  // with constant, distinct keys and a single context item, grouping is just "evaluate each value"
  if (!shared) {
    return (input, frame) => {
      if (Array.isArray(input)) return general(input, frame);
      const result: Record<string, unknown> = nullObject();
      for (let i = 0; i < values.length; i++) {
        const value = values[i](input, frame);
        if (typeof value !== 'undefined') result[literalKeys[i]] = value;
      }
      return result;
    };
  }
  // values that are plain name paths with the same first steps (`vars.rate.body.a`, `vars.rate.body.b`):
  // the shared steps are walked once per object and each path's own steps from there, as
  // walkNames would walk them whole; anything but plain objects on the way (an array, above all)
  // and such a path is evaluated whole after all
  const { prefix, rests } = shared;
  return (input, frame) => {
    if (Array.isArray(input)) return general(input, frame);
    const base = walkPlain(input, prefix);
    const result: Record<string, unknown> = nullObject();
    for (let i = 0; i < values.length; i++) {
      const rest = rests[i];
      let value =
        rest === undefined || base === NOT_PLAIN ? NOT_PLAIN : base === undefined ? undefined : walkPlain(base, rest);
      if (value === NOT_PLAIN) value = values[i](input, frame);
      if (typeof value !== 'undefined') result[literalKeys[i]] = value;
    }
    return result;
  };
}

/** walkPlain met something walkNames treats its own way (an array): evaluate the path whole. */
const NOT_PLAIN = Symbol('not plain');

/**
 * The steps `names` from `cur` as walkNames takes them (undefined where a field is missing or
 * `cur` is no object), or NOT_PLAIN at the first array value, which walkNames may map or keep.
 */
function walkPlain(cur: any, names: string[]): any {
  for (let i = 0; i < names.length; i++) {
    if (cur === null || typeof cur !== 'object' || cur._jsonata_function === true || cur._jsonata_lambda === true)
      return undefined;
    if (!Object.prototype.hasOwnProperty.call(cur, names[i])) return undefined;
    const v = cur[names[i]];
    if (v === undefined) return undefined;
    if (Array.isArray(v)) return NOT_PLAIN;
    cur = v;
  }
  return cur;
}

/**
 * The first steps all the plain name paths among an object's values share (at least one, and two
 * or more such paths, each with a step of its own after them), and each path's remaining steps
 * (undefined for the other values); undefined when there is nothing to share.
 */
function sharedSteps(
  paths: (string[] | undefined)[],
): { prefix: string[]; rests: (string[] | undefined)[] } | undefined {
  const named = paths.filter((p): p is string[] => p !== undefined);
  if (named.length < 2) return undefined;
  let n = Math.min(...named.map((p) => p.length)) - 1;
  for (const p of named) {
    let k = 0;
    while (k < n && p[k] === named[0][k]) k++;
    n = k;
  }
  if (n < 1) return undefined;
  return { prefix: named[0].slice(0, n), rests: paths.map((p) => p?.slice(n)) };
}

function literalObjectKeys(lhs: any[]): string[] | undefined {
  const keys: string[] = [];
  for (const [key] of lhs) {
    const plain =
      key.type === 'string' &&
      typeof key.value === 'string' &&
      Object.keys(key).every((k) => k === 'type' || k === 'value' || k === 'position');
    if (!plain || RESERVED_KEYS.has(key.value) || keys.includes(key.value)) return undefined;
    keys.push(key.value);
  }
  return keys;
}

/** Group-by `path{key: value}` (the parser's `group`): the same evaluateGroupExpression as `{...}`. */
function compileGroup(group: any, c: Ctx): (input: any, frame: Frame) => Record<string, unknown> {
  if (group === null || typeof group !== 'object' || !Array.isArray(group.lhs)) throw new Unsupported('group');
  const pairs = compilePairs(group.lhs, c);
  return (input, frame) => evaluateGroup(pairs, group.position, input, frame);
}

function compilePairs(lhs: any[], c: Ctx): [Ev, Ev][] {
  return lhs.map((pair: any) => {
    if (!Array.isArray(pair) || pair.length !== 2) throw new Unsupported('object pair');
    return [compileNode(pair[0], c), compileNode(pair[1], c)];
  });
}

// ---------------------------------------------------------------------------------------------
// Variables, conditions, blocks
// ---------------------------------------------------------------------------------------------

function compileVariable(node: any, c: Ctx): Ev {
  const name = stringValue(node);
  if (name === '') return (input) => (input && input.outerWrapper ? input[0] : input); // `$`: the context
  if (name === '$') return (_input, frame) => frame.run.root; // `$$`: the root document
  if (c.lambdaVars.has(name)) throw new Unsupported(`lambda $${name} as a value`);
  if (c.isFunctionName(name)) {
    if (!c.isShadowable(name)) throw new Unsupported(`function value $${name}`);
    // bound by the expression: where no binding is in scope JSONata finds the function itself
    return (_input, frame) => {
      const value = frame.lookup(name, NOT_BOUND);
      if (value === NOT_BOUND) throw BAIL;
      return value;
    };
  }
  return (_input, frame) => frame.lookup(name);
}

function compileCondition(node: any, c: Ctx): Ev {
  const condition = compileNode(node.condition, c);
  const then = compileNode(node.then, c);
  const otherwise = node.else === undefined ? undefined : compileNode(node.else, c);
  return (input, frame) => {
    if (toBoolean(condition(input, frame))) return then(input, frame);
    return otherwise ? otherwise(input, frame) : undefined;
  };
}

function compileBlock(node: any, c: Ctx): Ev {
  if (!Array.isArray(node.expressions)) throw new Unsupported('block');
  const last = node.expressions.length - 1;
  const statements: Ev[] = node.expressions.map((e: any, i: number) =>
    compileNode(e, c, i === last ? 'result' : 'statement'),
  );
  // a frame only matters when a statement of this block binds a variable
  const scoped = node.expressions.some((e: any) => e.type === 'bind');
  return (input, frame) => {
    const scope = scoped ? new Frame(frame, frame.run) : frame;
    let result;
    for (const statement of statements) result = statement(input, scope);
    return result;
  };
}

/**
 * `$x := value` only as a statement of a block (or the whole expression): elsewhere JSONata
 * evaluates siblings concurrently and the binding order would not be reproducible.
 * `$f := function(...) {...}` only where its value is discarded, outside lambda bodies.
 */
function compileBind(node: any, c: Ctx, place: Place): Ev {
  if (place === 'value') throw new Unsupported('binding outside a block statement');
  checkKeys(node.lhs);
  if (node.lhs.type !== 'variable') throw new Unsupported('bind target');
  if (isLambdaNode(node.rhs)) {
    if (place !== 'statement' || c.inLambda) throw new Unsupported('lambda value');
    const name = c.checkBindable(node.lhs.value, true);
    const lambda = compileLambda(node.rhs, c);
    return (input, frame) => {
      frame.bind(name, lambda(input, frame));
    };
  }
  const name = c.checkBindable(node.lhs.value);
  const rhs = compileNode(node.rhs, c);
  return (input, frame) => {
    const value = rhs(input, frame);
    frame.bind(name, value);
    return value;
  };
}

// ---------------------------------------------------------------------------------------------
// Function calls: evaluateFunction / apply / applyInner, lambdas for $map and $filter
// ---------------------------------------------------------------------------------------------

function isLambdaNode(node: any): boolean {
  return node !== null && typeof node === 'object' && node.type === 'lambda' && !node.thunk;
}

/**
 * What the compiler must know of the whole expression before it compiles any part of it, in one
 * walk of the tree: every variable a `#$name` binds (on a step or after a predicate), every
 * variable some `$f := function...` binds, and the function names the expression binds with `:=`
 * but never calls.
 */
function survey(
  ast: unknown,
  isFunctionName: (name: string) => boolean,
): { indexVars: Set<string>; lambdaVars: Set<string>; shadowable: Set<string>; makesLambdas: boolean } {
  const indexVars = new Set<string>();
  // lambda values (`function($x){...}`, tail-call thunks) keep the frame they were made in
  let makesLambdas = false;
  const lambdaVars = new Set<string>();
  const bound = new Set<string>();
  const called = new Set<string>();
  const walk = (node: any): void => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const item of node) walk(item);
      return;
    }
    if (node.type === 'lambda') makesLambdas = true;
    if (typeof node.index === 'string') indexVars.add(node.index);
    if (node.type === 'index' && typeof node.value === 'string') indexVars.add(node.value);
    if (node.type === 'bind' && node.lhs?.type === 'variable' && typeof node.lhs.value === 'string') {
      bound.add(node.lhs.value);
      if (isLambdaNode(node.rhs)) lambdaVars.add(node.lhs.value);
    }
    if ((node.type === 'function' || node.type === 'partial') && node.procedure?.type === 'variable')
      called.add(node.procedure.value);
    for (const key of Object.keys(node)) if (key !== 'value' || typeof node[key] === 'object') walk(node[key]);
  };
  walk(ast);
  const shadowable = new Set([...bound].filter((name) => isFunctionName(name) && !called.has(name)));
  return { indexVars, lambdaVars, shadowable, makesLambdas };
}

/** Whether the subtree names one of `names` as a variable anywhere (lambda bodies included). */
function readsAny(node: any, names: ReadonlySet<string>): boolean {
  if (names.size === 0 || node === null || typeof node !== 'object') return false;
  if (Array.isArray(node)) return node.some((item) => readsAny(item, names));
  if (node.type === 'variable' && typeof node.value === 'string' && names.has(node.value)) return true;
  for (const key of Object.keys(node))
    if ((key !== 'value' || typeof node[key] === 'object') && readsAny(node[key], names)) return true;
  return false;
}

function compileCall(node: any, c: Ctx, piped: boolean, tail: boolean): CallCore {
  checkKeys(node);
  if (node.type !== 'function') throw new Unsupported('call');
  const proc = node.procedure;
  checkKeys(proc);
  if (proc.type !== 'variable' || Object.keys(proc).some((k) => k !== 'type' && k !== 'value' && k !== 'position')) {
    throw new Unsupported('procedure');
  }
  if (c.lambdaVars.has(proc.value)) return compileLambdaCall(node, c, piped);
  const target = c.resolve(proc.value);
  if (!Array.isArray(node.arguments)) throw new Unsupported('arguments');
  if (target.kind === 'builtin' && target.builtin.noArgsOnly && (node.arguments.length > 0 || piped)) {
    throw new Unsupported(`$${target.name} with arguments`);
  }
  const offset = piped ? 1 : 0;
  const args: Ev[] = node.arguments.map((arg: any, i: number) => {
    if (arg !== null && typeof arg === 'object' && arg.type === 'lambda' && !arg.thunk) {
      const allowed = !tail && target.kind === 'builtin' && target.builtin.lambdaArgs?.includes(i + offset);
      if (!allowed) throw new Unsupported('lambda argument');
      return compileLambda(arg, c);
    }
    if (arg !== null && typeof arg === 'object' && arg.type === 'variable' && c.lambdaVars.has(arg.value)) {
      // `$map(xs, $f)`: only to $map/$filter, only outside lambda bodies (no recursion)
      const allowed =
        !tail && !c.inLambda && target.kind === 'builtin' && target.builtin.lambdaArgs?.includes(i + offset);
      if (!allowed) throw new Unsupported('lambda variable argument');
      checkKeys(arg);
      const name: string = arg.value;
      return (_input: unknown, frame: Frame) => frame.lookup(name);
    }
    if (arg !== null && typeof arg === 'object' && arg.type === 'regex') {
      // a regex literal (evaluateRegex) for the built-ins that take one; they see a matcher
      if (
        target.kind !== 'builtin' ||
        !target.builtin.regexArgs?.includes(i + offset) ||
        Object.keys(arg).some((k) => k !== 'type' && k !== 'value' && k !== 'position') ||
        !(arg.value instanceof RegExp)
      ) {
        throw new Unsupported('regex');
      }
      const matcher = regexMatcher(arg.value);
      return () => matcher;
    }
    return compileNode(arg, c);
  });
  const invoke = targetInvoker(target);

  const count = args.length + offset;
  return (input, frame, pipedValue, context) => {
    const evaluated: unknown[] = new Array(count);
    if (piped) {
      if (isFunction(pipedValue)) throw BAIL;
      evaluated[0] = pipedValue;
    }
    for (let i = 0; i < args.length; i++) {
      let value = args[i](input, frame);
      if (isFunction(value)) {
        // only our own lambdas and regex literals are emulated; JSONata would wrap any other function value
        if (value instanceof LambdaProc) value = wrapLambda(value);
        else if (!isRegexMatcher(value) || target.kind !== 'builtin') throw BAIL;
      }
      evaluated[i + offset] = value;
    }
    let result: any;
    try {
      result = invoke(evaluated, context, frame.run);
    } catch (err) {
      // applyInner: the call's position (a tail call's: its procedure's), the name if no token yet
      if (err instanceof FastJsonataError) err.relocate(tail ? proc.position : node.position, target.name);
      throw err;
    }
    // applyInner unwraps iterators and awaits promises; apply() runs returned thunks
    if (typeof result === 'object' && result !== null) {
      if (isIterable(result)) result = result.next().value;
      if (isPromise(result) || looksLikeThunk(result)) throw BAIL;
    }
    return result;
  };
}

/**
 * A call of a built-in as a value (`$exists(x)`, not piped, nothing after it): what compileCall's
 * closure, the function node's and evaluate()'s collapse do, in one closure, the arguments in an
 * array literal. Built-ins are most of a rule's calls, and each layer was a call of its own per
 * item. Undefined where compileCall's general way is needed (lambdas, regex literals, predicates).
 */
function compileBuiltinValue(node: any, c: Ctx): Ev | undefined {
  if (node.predicate !== undefined || node.keepArray || node.group !== undefined) return undefined;
  checkKeys(node);
  const proc = node.procedure;
  checkKeys(proc);
  if (proc.type !== 'variable' || Object.keys(proc).some((k) => k !== 'type' && k !== 'value' && k !== 'position'))
    return undefined;
  if (c.lambdaVars.has(proc.value) || !Array.isArray(node.arguments)) return undefined;
  const plainArgs = node.arguments.every(
    (arg: any) =>
      !(arg !== null && typeof arg === 'object' && (arg.type === 'lambda' || arg.type === 'regex')) &&
      !(arg !== null && typeof arg === 'object' && arg.type === 'variable' && c.lambdaVars.has(arg.value)),
  );
  if (!plainArgs) return undefined;
  const target = c.resolve(proc.value);
  if (target.kind !== 'builtin') return undefined;
  if (target.builtin.noArgsOnly && node.arguments.length > 0) throw new Unsupported(`$${target.name} with arguments`);
  const args: Ev[] = node.arguments.map((arg: any) => compileNode(arg, c));
  const { signature, impl } = target.builtin;
  const { name } = target;
  const position = node.position;
  // `evaluated` is an array made for this call alone (below): optional parameters padded into it
  const call = (evaluated: unknown[], input: unknown, frame: Frame): unknown => {
    let result: any;
    try {
      result = impl(signature.validate(evaluated, input, true), frame.run);
    } catch (err) {
      if (err instanceof FastJsonataError) err.relocate(position, name);
      throw err;
    }
    if (typeof result === 'object' && result !== null) {
      if (isIterable(result)) result = result.next().value;
      if (isPromise(result) || looksLikeThunk(result)) throw BAIL;
      if (Array.isArray(result) && (result as Seq).sequence === true && !(result as Seq).tupleStream)
        return collapse(result);
    }
    return result;
  };
  let ev: Ev;
  if (args.length === 1) {
    const [a0] = args;
    ev = (input, frame) => call([builtinArgument(a0(input, frame))], input, frame);
  } else if (args.length === 2) {
    const [a0, a1] = args;
    ev = (input, frame) => {
      const v0 = builtinArgument(a0(input, frame));
      return call([v0, builtinArgument(a1(input, frame))], input, frame);
    };
  } else {
    ev = (input, frame) => {
      const evaluated: unknown[] = [];
      for (let i = 0; i < args.length; i++) evaluated.push(builtinArgument(args[i](input, frame)));
      return call(evaluated, input, frame);
    };
  }
  COLLAPSING.add(ev);
  return ev;
}

/** An argument of a built-in as compileCall passes it: our lambdas wrapped, other function values left to JSONata. */
function builtinArgument(value: unknown): unknown {
  if (isFunction(value)) {
    if (value instanceof LambdaProc) return wrapLambda(value);
    if (!isRegexMatcher(value)) throw BAIL;
  }
  return value;
}

function targetInvoker(target: Target): (args: unknown[], context: unknown, run: RunState) => unknown {
  if (target.kind === 'builtin') {
    const { signature, impl } = target.builtin;
    return (args, context, run) => impl(signature.validate(args, context), run);
  }
  const { fn, signature } = target;
  return (args, context) => {
    const validated = signature ? signature.validate(args, context) : args;
    // registered functions get JSONata's focus object as `this`
    return fn.apply({ input: context, createSequence: createSequenceForFocus }, validated);
  };
}

function createSequenceForFocus(...items: unknown[]): Seq {
  return items.length === 1 ? seq1(items[0]) : seq();
}

/**
 * `$f(args)` where `$f := function...` (evaluateFunction -> apply -> applyProcedure). Only outside
 * lambda bodies, so no lambda calls another one and there is no recursion. Anything but our own
 * lambda in $f when it runs (not bound yet, a caller's binding) is left to JSONata.
 */
function compileLambdaCall(node: any, c: Ctx, piped: boolean): CallCore {
  if (piped || c.inLambda) throw new Unsupported('lambda call');
  const name: string = node.procedure.value;
  if (!Array.isArray(node.arguments)) throw new Unsupported('arguments');
  const args: Ev[] = node.arguments.map((arg: any) => {
    if (arg !== null && typeof arg === 'object' && (arg.type === 'lambda' || arg.type === 'regex'))
      throw new Unsupported('function argument');
    return compileNode(arg, c);
  });
  return (input, frame) => {
    const proc = frame.lookup(name);
    if (!(proc instanceof LambdaProc)) throw BAIL;
    const evaluated = new Array(args.length);
    for (let i = 0; i < args.length; i++) {
      const value = args[i](input, frame);
      if (isFunction(value)) throw BAIL;
      evaluated[i] = value;
    }
    return callLambda(proc, evaluated, node.position, name);
  };
}

function compileApply(node: any, c: Ctx): Ev {
  // `x ~> $f(args)` calls $f(x, args); anything else on the right (function values, chains) falls back
  if (node.value !== '~>' || node.rhs === null || typeof node.rhs !== 'object' || node.rhs.type !== 'function') {
    throw new Unsupported('~> without a function call');
  }
  const lhs = compileNode(node.lhs, c);
  // the call is made directly, without evaluate(): its own predicate/keepArray are ignored
  const call = compileCall(node.rhs, c, true, false);
  return (input, frame) => call(input, frame, lhs(input, frame), input);
}

function compileLambda(node: any, c: Ctx): Ev {
  checkKeys(node);
  if (!Array.isArray(node.arguments)) throw new Unsupported('lambda');
  const params: string[] = node.arguments.map((p: any) => {
    checkKeys(p);
    if (p.type !== 'variable') throw new Unsupported('lambda parameter');
    return c.checkBindable(p.value);
  });
  const wasInLambda = c.inLambda;
  c.inLambda = true;
  const body = compileNode(node.body, c);
  c.inLambda = wasInLambda;
  const lambda: Ev = (input, frame) => new LambdaProc(input, frame, params, body);
  return finish(node, lambda, c);
}

/** A tail-call thunk the parser put in a lambda body: the call runs when the lambda returns. */
function compileThunk(node: any, c: Ctx): Ev {
  if (!node.thunk || !c.inLambda) throw new Unsupported('lambda outside $map/$filter');
  if (!Array.isArray(node.arguments) || node.arguments.length !== 0) throw new Unsupported('thunk');
  const call = compileCall(node.body, c, false, true);
  return (input, frame) => new Thunk(call, input, frame);
}

// ---------------------------------------------------------------------------------------------
// Entry point
// ---------------------------------------------------------------------------------------------

export interface Program {
  /** names of the functions the expression calls */
  readonly called: readonly string[];
  run(input: unknown, bindings: Record<string, unknown> | undefined): unknown;
}

/**
 * Throws Unsupported for anything outside the subset. An evaluation that runs longer than
 * `timeout` ms throws JSONata's timeout error (D1012), checked as budget.ts describes; a range of
 * more than `rangeLimit` items (engine.expressions.maxRange) throws D2015.
 */
export function compileProgram(
  ast: unknown,
  functions: CustomFunctions,
  timeout = Infinity,
  rangeLimit?: number,
): Program {
  const isFunctionName = (name: string) =>
    JSONATA_FUNCTION_NAMES.has(name) || Object.prototype.hasOwnProperty.call(functions, name);
  const { indexVars, lambdaVars, shadowable, makesLambdas } = survey(ast, isFunctionName);
  const c = new Ctx(functions, indexVars, lambdaVars, shadowable);
  const ev = compileNode(ast, c, 'result');
  const budget = newBudget(timeout, rangeLimit);
  // an expression without lambdas leaves no closure over its frame once it has run: one run state
  // and outermost frame serve all its evaluations (two objects fewer each; the route's rules,
  // parameters and mappings are evaluated several times a request), cleared after each so they
  // keep no input alive; the same expression evaluated inside itself (through a registered
  // function) gets its own
  const own = makesLambdas ? undefined : newRunState();
  const ownFrame = own && new Frame(undefined, own);
  let busy = false;
  return {
    called: [...c.called],
    run(input, bindings) {
      const reuse = own !== undefined && !busy;
      const run = reuse ? own : newRunState();
      run.root = input;
      run.bindings = typeof bindings === 'object' && bindings !== null ? bindings : undefined;
      const frame = reuse ? ownFrame! : new Frame(undefined, run);
      // like evaluate(): a top-level array is wrapped so it is treated as one value
      let context: any = input;
      if (Array.isArray(input) && !isSequence(input)) {
        context = seq1(input);
        context.outerWrapper = true;
      }
      const outer = enter(budget);
      if (reuse) busy = true;
      try {
        return ev(context, frame);
      } finally {
        restore(outer);
        if (reuse) {
          busy = false;
          own.root = own.bindings = own.millis = undefined;
          ownFrame!.clear();
        }
      }
    },
  };
}

/** A run state before an evaluation: no input, no bindings, no clock read yet. */
function newRunState(): RunState {
  return { root: undefined, bindings: undefined, millis: undefined };
}
