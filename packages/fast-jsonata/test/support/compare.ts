// How the package's tests compare fast-jsonata with JSONata: both compile the same source with the
// same custom functions, evaluate deep copies of the same input, and must agree on the value (JSON
// form and everything JSONata's result carries: sequence flags, null prototypes, key order, NaN,
// -0) or on failing, with the same error code.

import jsonata from 'jsonata';
import { expect } from 'vitest';
import { compileFast, type CustomFunctions, type FastFn } from '../../src/index.ts';
import { TEST_FUNCTIONS } from './functions.ts';

export function compile(
  src: string,
  functions: CustomFunctions = TEST_FUNCTIONS,
): { expr: jsonata.Expression; fast: FastFn | undefined } {
  const expr = jsonata(src);
  for (const [name, f] of Object.entries(functions)) expr.registerFunction(name, f.fn, f.signature);
  return { expr, fast: compileFast(expr.ast(), functions) };
}

export type Outcome = { ok: true; value: unknown } | { ok: false; error: any };

export async function settle(f: () => unknown): Promise<Outcome> {
  try {
    return { ok: true, value: await f() };
  } catch (error) {
    return { ok: false, error };
  }
}

/** Deep copy so neither evaluator sees the other's mutations (JSONata flags arrays it is given). */
export function clone<T>(v: T): T {
  return v === undefined ? v : structuredClone(v);
}

/** JSON form (what the brief compares), keeping undefined distinct from null. */
function json(v: unknown): unknown {
  return v === undefined ? { $undefined: true } : JSON.parse(JSON.stringify(v));
}

/** Everything JSONata's result carries: sequence flags, null-prototype objects, key order, NaN/-0. */
function shape(v: any): unknown {
  if (v === undefined) return { $undefined: true };
  if (typeof v === 'number') return Number.isNaN(v) ? { $nan: true } : Object.is(v, -0) ? { $negativeZero: true } : v;
  if (typeof v === 'function') return { $function: true };
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    return {
      $array: Array.from(v, shape),
      sequence: (v as any).sequence === true,
      keepSingleton: !!(v as any).keepSingleton,
      outerWrapper: !!(v as any).outerWrapper,
      cons: !!(v as any).cons,
    };
  }
  return { $object: Object.keys(v).map((k) => [k, shape(v[k])]), nullPrototype: Object.getPrototypeOf(v) === null };
}

export function expectSame(expected: Outcome, actual: Outcome, where: string): void {
  if (!expected.ok) {
    expect(
      actual.ok,
      `${where}: JSONata threw ${expected.error?.code ?? expected.error}, fast path returned ${JSON.stringify((actual as any).value)}`,
    ).toBe(false);
    const actualCode = (actual as any).error?.code;
    expect(actualCode, `${where}: error code`).toBe(expected.error?.code);
    return;
  }
  if (!actual.ok)
    throw new Error(
      `${where}: fast path threw ${actual.error?.code ?? actual.error}, JSONata returned ${JSON.stringify(expected.value)}`,
    );
  expect(json(actual.value), `${where}: JSON result`).toEqual(json(expected.value));
  expect(shape(actual.value), `${where}: structure`).toEqual(shape(expected.value));
}

/**
 * expectSame as a value, for property tests: undefined when the outcomes agree, else what differs.
 * `codes: false` accepts any error for an error (JSONata evaluates the members of array and object
 * constructors concurrently and reports whichever error settles first).
 */
function difference(expected: Outcome, actual: Outcome, codes = true): string | undefined {
  const show = (o: Outcome) =>
    o.ok ? `returned ${JSON.stringify(o.value) ?? 'undefined'}` : `threw ${o.error?.code ?? o.error}`;
  if (expected.ok !== actual.ok) return `JSONata ${show(expected)}, fast-jsonata ${show(actual)}`;
  if (!expected.ok)
    return codes && expected.error?.code !== (actual as any).error?.code
      ? `JSONata ${show(expected)}, fast-jsonata ${show(actual)}`
      : undefined;
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  if (!same(json((actual as any).value), json(expected.value)))
    return `JSONata ${show(expected)}, fast-jsonata ${show(actual)}`;
  if (!same(shape((actual as any).value), shape(expected.value)))
    return `same JSON, different structure: JSONata ${JSON.stringify(shape(expected.value))}, fast-jsonata ${JSON.stringify(shape((actual as any).value))}`;
  return undefined;
}

/** Both evaluators on one input (deep copies), and what differs. */
export async function compareOn(
  src: string,
  compiled: { expr: jsonata.Expression; fast: FastFn },
  input: unknown,
  bindings?: Record<string, unknown>,
  codes = true,
): Promise<string | undefined> {
  const expected = await settle(() => compiled.expr.evaluate(clone(input), clone(bindings)));
  const actual = await settle(() => compiled.fast(clone(input), clone(bindings)));
  const diff = difference(expected, actual, codes);
  return (
    diff &&
    `${src}\n  on input ${JSON.stringify(input)}${bindings ? `\n  with bindings ${JSON.stringify(bindings)}` : ''}\n  ${diff}`
  );
}
