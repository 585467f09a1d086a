// The fast evaluator is timed like JSONata's own evaluator: an expression it compiles (no
// recursion, but data-sized loops) that runs past engine.expressions.timeout fails with JSONata's
// timeout error, which compileExpression reports as an ExpressionLimitError naming the expression.
// The fallback that compileFast builds for values it cannot emulate gets the same limits.
// Bounds on elapsed time here only prove the evaluation stopped; they measure no speed.

import jsonata from 'jsonata';
import { describe, expect, it } from 'vitest';
import { compileFast } from '../../engine/runtime/fast-jsonata.ts';
import { compileExpression, ExpressionLimitError } from '../../engine/runtime/expressions.ts';
import { FUNCTIONS } from '../../engine/runtime/functions.ts';

// each would run for minutes (10^10 items of work) with no limit
const RUNAWAYS = [
  '[1..10000000].[1..10000000]',
  '$count([1..100000].($x := $; [1..100000][$ = $x]))',
  '$map([1..100000], function($v){ $sum([1..100000]) })',
  '$count($filter([1..100000], function($v){ $count([1..100000][$ < 0]) > 0 }))',
  '($big := [1..1000000]; $count([1..100000][$ in $big]))',
  '($big := [1..1000000]; [1..100000][$big])',
  '($big := [1..100000]; $count([1..100000].$join($big.$string(), ",")))',
  '$count([1..100000].{"k": [1..100000][$ < 0]})',
];

const timed = (f: () => unknown) => {
  const started = Date.now();
  try {
    f();
  } catch (err) {
    return { err: err as any, ms: Date.now() - started };
  }
  throw new Error('the evaluation was expected to fail');
};

describe('fast path time limit', () => {
  it.each(RUNAWAYS)('%s stops at the timeout with an ExpressionLimitError', (src) => {
    const expr = compileExpression(src, [], { timeout: 150, where: 'route r, steps[0].transform.expression' });
    expect(expr.fast).toBe(true);
    const { err, ms } = timed(() => expr.evaluate({ body: {} }));
    expect(err).toBeInstanceOf(ExpressionLimitError);
    expect(err.message).toBe('expression at route r, steps[0].transform.expression: evaluation ran longer than 150 ms (engine.expressions.timeout)');
    expect(ms).toBeGreaterThanOrEqual(150);
    expect(ms).toBeLessThan(5_000);
  });

  it("fails with JSONata's own timeout error (code D1012, same message)", () => {
    const fast = compileFast(jsonata(RUNAWAYS[1]).ast(), FUNCTIONS, { timeout: 100 })!;
    const { err } = timed(() => fast({}));
    expect(err.code).toBe('D1012');
    expect(err.message).toBe('Evaluation timeout after 100 milliseconds. Check for infinite loop');
  });

  it('limits each evaluation, not the compiled expression: after a runaway, more work than the limit in total succeeds', async () => {
    const src = '$count([1..n].([1..$$.m][$ < 2]))';
    const expr = compileExpression(src, [], { timeout: 200 });
    expect(expr.fast).toBe(true);
    expect(timed(() => expr.evaluate({ n: 100_000, m: 100_000 })).err).toBeInstanceOf(ExpressionLimitError);
    const small = { n: 200, m: 1_000 };
    const expected = await jsonata(src).evaluate(small);
    expect(expected).toBe(200);
    const started = Date.now();
    let runs = 0;
    while (Date.now() - started < 600) {
      expect(expr.evaluate(small)).toBe(expected);
      runs++;
    }
    expect(runs).toBeGreaterThan(1);
  });
});

describe('the fallback built by compileFast', () => {
  // a binding that shadows a function the expression calls sends the evaluation to JSONata itself
  const SLOW = '$count([1..1000000].([1..1000][$ < 0]))';
  const shadow = { count: (xs: unknown[]) => (Array.isArray(xs) ? xs.length : 0) };

  it('has the timeout', async () => {
    const fast = compileFast(jsonata(SLOW).ast(), FUNCTIONS, { timeout: 150 })!;
    const started = Date.now();
    const err: any = await Promise.resolve(fast({}, shadow)).catch((e) => e);
    expect(err?.code).toBe('D1012');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('reports it as an ExpressionLimitError through compileExpression', async () => {
    const expr = compileExpression(SLOW, [], { timeout: 150, where: 'route r, steps[1].transform.expression' });
    expect(expr.fast).toBe(true);
    const err: any = await Promise.resolve(expr.evaluate({}, shadow)).catch((e) => e);
    expect(err).toBeInstanceOf(ExpressionLimitError);
    expect(err.message).toMatch(/^expression at route r, steps\[1\]\.transform\.expression: evaluation ran longer than 150 ms/);
  });
});

describe('one parse per expression and limits, one label per use', () => {
  it('two uses of the same expression each name their own place, and other limits get their own parse', () => {
    const src = RUNAWAYS[0];
    const a = compileExpression(src, [], { timeout: 100, where: 'route a, steps[0]' });
    const b = compileExpression(src, [], { timeout: 100, where: 'route b, steps[3]' });
    expect(timed(() => a.evaluate({})).err.message).toMatch(/^expression at route a, steps\[0\]: evaluation ran longer than 100 ms/);
    expect(timed(() => b.evaluate({})).err.message).toMatch(/^expression at route b, steps\[3\]: evaluation ran longer than 100 ms/);
    const c = compileExpression(src, [], { timeout: 60, where: 'route c' });
    expect(timed(() => c.evaluate({})).err.message).toMatch(/longer than 60 ms/);
  });

  it('a syntax error is reported at each use with its own path', () => {
    expect(() => compileExpression('$x := ', ['steps', 0])).toThrow(expect.objectContaining({ path: ['steps', 0] }));
    expect(() => compileExpression('$x := ', ['steps', 7])).toThrow(expect.objectContaining({ path: ['steps', 7] }));
  });
});
