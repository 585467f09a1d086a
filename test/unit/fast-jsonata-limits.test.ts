// The fast evaluator is timed like JSONata's own evaluator: an expression it compiles (no
// recursion, but data-sized loops) that runs past engine.expressions.timeout fails with JSONata's
// timeout error, which compileExpression reports as an ExpressionLimitError naming the expression.
// The fallback that compileFast builds for values it cannot emulate gets the same limits
// (compileFast's own D1012 and D2015: packages/fast-jsonata/test/limits.test.ts).
// Bounds on elapsed time here only prove the evaluation stopped; they measure no speed.

import jsonata from 'jsonata';
import { describe, expect, it } from 'vitest';
import { compileExpression, ExpressionLimitError } from '../../engine/expressions/expressions.ts';

// ranges up to JSONata's own bound: these tests are about time, not engine.expressions.maxRange
const maxRange = 10_000_000;

// each would run for minutes (10^10 items of work) with no limit
const RUNAWAYS = [
  '[1..1000000].[1..1000000]',
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
    const expr = compileExpression(src, [], {
      timeout: 150,
      maxRange,
      where: 'route r, steps[0].transform.expression',
    });
    expect(expr.fast).toBe(true);
    const { err, ms } = timed(() => expr.evaluate({ body: {} }));
    expect(err).toBeInstanceOf(ExpressionLimitError);
    expect(err.message).toBe(
      'expression at route r, steps[0].transform.expression: evaluation ran longer than 150 ms (engine.expressions.timeout)',
    );
    expect(ms).toBeGreaterThanOrEqual(150);
    expect(ms).toBeLessThan(5_000);
  });

  it('limits each evaluation, not the compiled expression: after a runaway, more work than the limit in total succeeds', async () => {
    const src = '$count([1..n].([1..$$.m][$ < 2]))';
    const expr = compileExpression(src, [], { timeout: 200, maxRange });
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

  it('reports it as an ExpressionLimitError through compileExpression', async () => {
    const expr = compileExpression(SLOW, [], {
      timeout: 150,
      maxRange,
      where: 'route r, steps[1].transform.expression',
    });
    expect(expr.fast).toBe(true);
    const err: any = await Promise.resolve(expr.evaluate({}, shadow)).catch((e) => e);
    expect(err).toBeInstanceOf(ExpressionLimitError);
    expect(err.message).toMatch(
      /^expression at route r, steps\[1\]\.transform\.expression: evaluation ran longer than 150 ms/,
    );
  });
});

describe('one parse per expression and limits, one label per use', () => {
  it('two uses of the same expression each name their own place, and other limits get their own parse', () => {
    const src = RUNAWAYS[0];
    const a = compileExpression(src, [], { timeout: 100, maxRange, where: 'route a, steps[0]' });
    const b = compileExpression(src, [], { timeout: 100, maxRange, where: 'route b, steps[3]' });
    expect(timed(() => a.evaluate({})).err.message).toMatch(
      /^expression at route a, steps\[0\]: evaluation ran longer than 100 ms/,
    );
    expect(timed(() => b.evaluate({})).err.message).toMatch(
      /^expression at route b, steps\[3\]: evaluation ran longer than 100 ms/,
    );
    const c = compileExpression(src, [], { timeout: 60, maxRange, where: 'route c' });
    expect(timed(() => c.evaluate({})).err.message).toMatch(/longer than 60 ms/);
  });

  it('a syntax error is reported at each use with its own path', () => {
    expect(() => compileExpression('$x := ', ['steps', 0])).toThrow(expect.objectContaining({ path: ['steps', 0] }));
    expect(() => compileExpression('$x := ', ['steps', 7])).toThrow(expect.objectContaining({ path: ['steps', 7] }));
  });
});

// Issue 24: a built-in passed as the callback ($string, $boolean, $append...) evaluates no node
// of the expression, so JSONata's own clock never ran: `$count($map([1..9999999], $string))` took
// 13.4 s with a 1 s limit. Each reported expression is run as it was written (JSONata evaluates
// it: the fast path takes no function values) and with a lambda as the callback (the fast path).
describe('runaways whatever the callback, on both evaluators (default limits: 1,000 ms, ranges of 100,000)', () => {
  const WHERE = 'route r, steps[0].transform.expression';
  const REPORTED = ['$count($map(XS, $string))', '$count($filter(XS, $boolean))', '$join($map(XS, $string))'];
  const LAMBDA = [
    '$count($map(XS, function($v){ $string($v) }))',
    '$count($filter(XS, function($v){ $boolean($v) }))',
    '$join($map(XS, function($v){ $string($v) }))',
  ];
  const cases = [...REPORTED.map((src) => ({ src, fast: false })), ...LAMBDA.map((src) => ({ src, fast: true }))];

  /** The evaluation's error and how long it took to fail (the fast path throws, JSONata rejects). */
  const failure = async (f: () => unknown) => {
    const started = Date.now();
    const err: any = await (async () => f())().then(
      () => undefined,
      (e) => e,
    );
    if (err === undefined) throw new Error('the evaluation was expected to fail');
    return { err, ms: Date.now() - started };
  };

  it.each(cases)(
    '$src over [1..9999999] is refused by engine.expressions.maxRange (fast path: $fast)',
    async ({ src, fast }) => {
      const expr = compileExpression(src.replace('XS', '[1..9999999]'), [], { where: WHERE });
      expect(expr.fast).toBe(fast);
      const { err, ms } = await failure(() => expr.evaluate({}));
      expect(err).toBeInstanceOf(ExpressionLimitError);
      expect(err.message).toBe(
        `expression at ${WHERE}: a range has more than 100000 items (engine.expressions.maxRange)`,
      );
      expect(ms).toBeLessThan(3_000);
    },
  );

  // the same work from the input (a request body's array): only the clock can stop it. Ten million
  // items: a million finish within the second on a quiet machine (0.5-1.2 s measured), so the
  // limit would not be what stops them
  const million = Array.from({ length: 1_000_000 }, (_, i) => i);
  const tenMillion = Array.from({ length: 10_000_000 }, (_, i) => i);
  it.each(cases)(
    '$src over an input array of 10,000,000 stops at the time limit (fast path: $fast)',
    async ({ src, fast }) => {
      const expr = compileExpression(src.replace('XS', 'xs'), [], { where: WHERE });
      expect(expr.fast).toBe(fast);
      const { err, ms } = await failure(() => expr.evaluate({ xs: tenMillion }));
      expect(err).toBeInstanceOf(ExpressionLimitError);
      expect(err.message).toBe(
        `expression at ${WHERE}: evaluation ran longer than 1000 ms (engine.expressions.timeout)`,
      );
      expect(ms).toBeLessThan(3_000);
    },
  );

  // built-in callbacks of every higher-order function, and JSONata's quadratic $sort and $distinct
  // (a 300 ms limit: $sift and $each list an object's keys before the first callback, 0.7 s for 1,000,000)
  const keyed = Object.fromEntries(Array.from({ length: 300_000 }, (_, i) => ['k' + i, i]));
  const HEAVY: [string, unknown][] = [
    ['$reduce(xs, $append)', { xs: Array.from({ length: 100_000 }, (_, i) => i) }],
    ['$single(xs, $boolean)', { xs: million.map(() => 0) }],
    ['$count($sift(o, $boolean))', { o: keyed }],
    ['$count($each(o, $string))', { o: keyed }],
    ['$count($sort(xs, $contains))', { xs: million.map(String) }],
    ['$count($distinct(xs))', { xs: Array.from({ length: 100_000 }, (_, i) => ({ i })) }],
    // a partial application as the callback
    ['$count($map(xs, $substring(?, 0, 1)))', { xs: million.map(String) }],
  ];
  it.each(HEAVY)('%s stops at the time limit', async (src, input) => {
    const expr = compileExpression(src, [], { timeout: 300, where: WHERE });
    expect(expr.fast).toBe(false);
    const { err, ms } = await failure(() => expr.evaluate(input));
    expect(err).toBeInstanceOf(ExpressionLimitError);
    expect(err.message).toMatch(/evaluation ran longer than 300 ms \(engine\.expressions\.timeout\)$/);
    expect(ms).toBeLessThan(3_000);
  });

  it("$sort is no longer quadratic: 30,000 numbers sort well within the limit (JSONata's own took 10 s for 20,000)", async () => {
    const xs = Array.from({ length: 30_000 }, (_, i) => (i * 7919) % 30_000);
    const expr = compileExpression('$sort(xs)', []);
    expect(expr.fast).toBe(false);
    expect(await expr.evaluate({ xs })).toEqual([...xs].sort((a, b) => a - b));
  });

  it('a range over engine.expressions.maxRange is refused on both paths, the fallback of the fast path too; one at the bound is built', async () => {
    const at = compileExpression('$count([1..100000])', []);
    expect(at.evaluate({})).toBe(100_000);
    const over = compileExpression('$count([1..100001])', [], { where: WHERE });
    expect(over.fast).toBe(true);
    expect(() => over.evaluate({})).toThrow(
      `expression at ${WHERE}: a range has more than 100000 items (engine.expressions.maxRange)`,
    );
    // a binding that shadows $count sends the same expression to JSONata
    const shadow = { count: (xs: unknown[]) => xs.length };
    await expect(Promise.resolve(over.evaluate({}, shadow))).rejects.toThrow(
      'a range has more than 100000 items (engine.expressions.maxRange)',
    );
    const slow = compileExpression('$count($map([1..100001], $string))', [], { where: WHERE });
    expect(slow.fast).toBe(false);
    await expect(slow.evaluate({})).rejects.toThrow('a range has more than 100000 items (engine.expressions.maxRange)');
    // the setting: a range of 11 with maxRange 10, from the data as well as from literals
    const small = compileExpression('[1..n]', [], { maxRange: 10, where: WHERE });
    expect(small.evaluate({ n: 10 })).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(() => small.evaluate({ n: 11 })).toThrow('a range has more than 10 items (engine.expressions.maxRange)');
    await expect(compileExpression('$map([1..11], $string)', [], { maxRange: 10 }).evaluate({})).rejects.toThrow(
      'more than 10 items',
    );
  });
});
