// compileFast reuses one run state and outermost frame for the evaluations of an expression
// without lambdas (compile.ts, compileProgram): each evaluation must still start afresh, as
// JSONata's does, and one running inside another must not share them.

import jsonata from 'jsonata';
import { describe, expect, it } from 'vitest';
import { compileFast } from '../src/index.ts';
import { TEST_FUNCTIONS } from './support/functions.ts';

const fast = (expr: string, functions = TEST_FUNCTIONS) => compileFast(jsonata(expr).ast(), functions)!;

describe('an expression evaluated again', () => {
  it('does not see a variable its previous evaluation bound at the top level', async () => {
    const expr = "$y := $exists($y) ? 'seen' : 'new'";
    const f = fast(expr);
    expect(f({})).toBe('new');
    expect(f({})).toBe('new');
    // JSONata itself, for the record
    expect(await jsonata(expr).evaluate({})).toBe('new');
  });

  it('reads the input and bindings of this evaluation, not the last one', () => {
    const f = fast('a & $b');
    expect(f({ a: 'x' }, { b: '1' })).toBe('x1');
    expect(f({ a: 'y' })).toBe('y');
    expect(f({ a: 'z' }, { b: '2' })).toBe('z2');
    // the root ($$) too
    const root = fast('$$.a');
    expect(root({ a: 1 })).toBe(1);
    expect(root({ a: 2 })).toBe(2);
  });

  it('takes a new $millis() each time (one per evaluation, as JSONata)', async () => {
    const f = fast('[$millis(), $millis()]');
    const first = f({}) as number[];
    expect(first[0]).toBe(first[1]);
    await new Promise((r) => setTimeout(r, 5));
    const second = f({}) as number[];
    expect(second[0]).toBeGreaterThan(first[0]);
  });

  it('evaluated inside itself (through a registered function) gets its own state', () => {
    const functions = {
      ...TEST_FUNCTIONS,
      again: { fn: (n: number): unknown => (n > 0 ? f({ n: n - 1 }) : 'bottom') },
    };
    // the outer evaluation runs itself inside for n - 1, then reads its own root ($$)
    const f = fast("($r := $again(n); $string($$.n) & ':' & $r)", functions);
    expect(f({ n: 2 })).toBe('2:1:0:bottom');
  });

  it('with a lambda keeps a frame of its own each time (a lambda value may outlive the evaluation)', () => {
    const f = fast('$map(items, function($v) { $v * k })');
    expect([...(f({ items: [1, 2], k: 10 }) as number[])]).toEqual([10, 20]);
    expect(f({ items: [3], k: 2 })).toEqual(6);
  });
});
