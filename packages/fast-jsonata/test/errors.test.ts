// Differential test of where the fast evaluator's errors point: the code, the position and the
// token must be JSONata's own (route authors read them in the log), including the relabelling
// JSONata does on the way up (an error of the right operand of `and`/`or` takes the operator's).

import { describe, expect, it } from 'vitest';
import { compile } from './support/compare.ts';

const INPUT = { body: { x: 'text', n: 5, obj: { a: 1 }, items: [{ price: 'p' }] } };

/** Expressions that fail on INPUT, both evaluators. */
const ERRORS = [
  // the right operand of and/or: relabelled with the operator
  'true and body.x + 1',
  'body.n > 1 and -body.x',
  'false or $number(body.x)',
  'body.missing or body.obj < 1',
  '(true and body.n) and body.x * 2',
  'true and (false or body.x - 1)',
  'body.items[true and price * 2]',
  // the left operand keeps its own position
  'body.x + 1 and true',
  '-body.x or true',
  '$number(body.x) and true',
  // other operators and functions, for reference
  'body.x + 1',
  '1 - body.x',
  'body.n < body.x',
  '-body.x',
  "$substring(body.n, 1) & ''",
  '{"a": 1, "a": 2}',
  // an error in a called lambda points at the call; one in a tuple stream or group-by at its node
  '($f := function($a){$a + 1}; $f(body.x))',
  '($f := function($a){$uppercase($a)}; $f(body.n))',
  'body.items#$i[price * $i > 1]',
  'body.items#$i.{"p": -price}',
  'body.obj{a: 1}',
  'body.items{"a": 1, "a": 2}',
  '$map([1], function($v){$uppercase($v)})',
  '$map([1], function($v){$uppercase($v) & ""})',
];

async function errorOf(f: () => unknown): Promise<{ code: unknown; position: unknown; token: unknown }> {
  try {
    await f();
  } catch (e: any) {
    return { code: e?.code, position: e?.position, token: e?.token };
  }
  throw new Error('no error');
}

describe('fast JSONata errors point where JSONata points', () => {
  it.each(ERRORS)('%s', async (src) => {
    const { expr, fast } = compile(src);
    expect(fast, 'compiles to the fast path').toBeTypeOf('function');
    const expected = await errorOf(() => expr.evaluate(structuredClone(INPUT)));
    const actual = await errorOf(() => fast!(structuredClone(INPUT)));
    expect(actual).toEqual(expected);
  });
});
