// The engine's own JSONata functions (engine/core/functions.ts) run on fast-jsonata's fast
// path through compileExpression, with the results JSONata gives when they are registered on it.
// (fast-jsonata's own tests use stand-ins of the same names: the package imports nothing of the engine.)

import jsonata from 'jsonata';
import { describe, expect, it } from 'vitest';
import { compileExpression } from '../../engine/expressions/expressions.ts';
import { FUNCTIONS } from '../../engine/core/functions.ts';

const INPUT = {
  body: {
    iban: 'DE89 3704 0044 0532 0130 00',
    buyCurrency: 'EUR',
    str: '42.50',
    x: 'hello',
    n: 5,
    items: [{ name: 'GB82WEST12345698765432' }, { name: 'x' }],
  },
};

const CASES = [
  '$ibanValid(body.iban)',
  "$bicValid('DEUTDEFF')",
  '$currencyValid(body.buyCurrency)',
  '$minorUnits(body.buyCurrency)',
  "$amountValid(body.str, 'EUR')",
  "$amountValid(body.str, 'JPY')",
  "$abaValid('011000015')",
  '$stableId(body.x, body.n)',
  "$ibanElectronic('de89 3704 0044 0532 0130 00')",
  "$notPast('2000-01-01')",
  'body.items.$ibanValid(name)',
];

describe("the engine's functions on the fast path", () => {
  it('every registered function is named by a case', () => {
    for (const name of Object.keys(FUNCTIONS))
      if (!['today', 'uuid'].includes(name))
        expect(
          CASES.some((c) => c.includes(`$${name}(`)),
          name,
        ).toBe(true);
  });

  it.each(CASES)('%s', async (src) => {
    const expr = compileExpression(src);
    expect(expr.fast).toBe(true);
    const reference = jsonata(src);
    for (const [name, f] of Object.entries(FUNCTIONS)) reference.registerFunction(name, f.fn, f.signature);
    expect(expr.evaluate(structuredClone(INPUT))).toEqual(await reference.evaluate(structuredClone(INPUT)));
  });

  it('$today() and $uuid() are fast and well formed', () => {
    expect(compileExpression('$today()').evaluate({})).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(compileExpression('$uuid()').evaluate({})).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
    );
  });
});
