// compileFast's limits, like JSONata's own: past `timeout` an evaluation fails with JSONata's
// timeout error (D1012, same message), on the fast path and on the fallback it builds for values it
// cannot emulate; a range of more than `maxRange` items fails with D2015 before it is built.
// Bounds on elapsed time here only prove the evaluation stopped; they measure no speed.
// (How the engine reports these, ExpressionLimitError, is tested in test/unit/fast-jsonata-limits.test.ts.)

import jsonata from 'jsonata';
import { describe, expect, it } from 'vitest';
import { compileFast } from '../src/index.ts';
import { TEST_FUNCTIONS } from './support/functions.ts';

// ranges up to JSONata's own bound: these tests are about time
const maxRange = 10_000_000;

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
  it("fails with JSONata's own timeout error (code D1012, same message)", () => {
    const fast = compileFast(jsonata('$count([1..100000].($x := $; [1..100000][$ = $x]))').ast(), TEST_FUNCTIONS, {
      timeout: 100,
    })!;
    const { err, ms } = timed(() => fast({}));
    expect(err.code).toBe('D1012');
    expect(err.message).toBe('Evaluation timeout after 100 milliseconds. Check for infinite loop');
    expect(ms).toBeLessThan(5_000);
  });
});

describe('the fallback built by compileFast', () => {
  // a binding that shadows a function the expression calls sends the evaluation to JSONata itself
  const SLOW = '$count([1..1000000].([1..1000][$ < 0]))';
  const shadow = { count: (xs: unknown[]) => (Array.isArray(xs) ? xs.length : 0) };

  it('has the timeout', async () => {
    const fast = compileFast(jsonata(SLOW).ast(), TEST_FUNCTIONS, { timeout: 150, maxRange })!;
    const started = Date.now();
    const err: any = await Promise.resolve(fast({}, shadow)).catch((e) => e);
    expect(err?.code).toBe('D1012');
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('maxRange', () => {
  it('a range over maxRange fails with D2015 on the fast path and on its fallback; one at the bound is built', async () => {
    const fast = compileFast(jsonata('[1..n]').ast(), TEST_FUNCTIONS, { maxRange: 10 })!;
    expect(fast({ n: 10 })).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(() => fast({ n: 11 })).toThrow(expect.objectContaining({ code: 'D2015' }));
    const counted = compileFast(jsonata('$count([1..n])').ast(), TEST_FUNCTIONS, { maxRange: 10 })!;
    await expect(Promise.resolve(counted({ n: 11 }, { count: (xs: unknown[]) => xs.length }))).rejects.toMatchObject({
      code: 'D2015',
    });
  });
});
