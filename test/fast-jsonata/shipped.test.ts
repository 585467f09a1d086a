// Differential test of fast-jsonata against the reference jsonata on every JSONata expression the
// project ships (shipped-expressions.ts reads them, and the route tests' recorded inputs, as data),
// over the recorded inputs of the expression's connector folder and seeded variants of them (a
// field removed, nulled, emptied or of another type). Values and error codes must agree; a
// divergence fails naming the expression's place, the expression and the input.
// It imports nothing of the engine: the custom functions are fast-jsonata's test stand-ins.

import jsonata from 'jsonata';
import { compileFast, type CustomFunctions } from '@bank-integration-engine/fast-jsonata';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { compareOn } from '../../packages/fast-jsonata/test/support/compare.ts';
import { TEST_FUNCTIONS } from '../../packages/fast-jsonata/test/support/functions.ts';
import { recordedInputs, shippedExpressions } from './shipped-expressions.ts';

// $uuid() would differ between two evaluations: a fixed one for both
const FUNCTIONS: CustomFunctions = { ...TEST_FUNCTIONS, uuid: { fn: () => '00000000-0000-4000-8000-000000000000' } };

const SHIPPED = shippedExpressions();
const RECORDED = recordedInputs();
const GENERIC: unknown[] = [
  {},
  { body: null, headers: {}, query: {}, params: {}, vars: {} },
  { body: [], headers: {}, query: {}, params: {}, vars: { vendor: {} } },
];

/** mulberry32: the same variants on every run */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A copy of `input` with one field of its body or vars removed, nulled, emptied or of another type. */
function variant(input: unknown, rnd: () => number): unknown {
  const copy = structuredClone(input) as Record<string, any>;
  const holders: [any, string][] = [];
  const walk = (v: any, depth: number) => {
    if (!v || typeof v !== 'object' || depth > 6) return;
    for (const k of Object.keys(v)) {
      holders.push([v, k]);
      walk(v[k], depth + 1);
    }
  };
  walk({ body: copy.body, vars: copy.vars, query: copy.query, headers: copy.headers }, 0);
  if (!holders.length) return copy;
  const [holder, key] = holders[Math.floor(rnd() * holders.length)];
  const replacements = [
    undefined,
    null,
    '',
    0,
    -1.5,
    'x',
    [],
    {},
    true,
    ['a', 'b'],
    '2099-01-01',
    'DE89370400440532013000',
    '100.255',
  ];
  const r = replacements[Math.floor(rnd() * replacements.length)];
  if (r === undefined) delete holder[key];
  else holder[key] = r;
  return copy;
}

function inputsFor(folder: string | undefined, rnd: () => number): unknown[] {
  const recorded = folder ? (RECORDED.get(folder) ?? []) : [...RECORDED.values()].flat();
  // at most 40 recorded ones (the longer lists sampled), each with two variants
  const picked =
    recorded.length <= 40 ? recorded : Array.from({ length: 40 }, () => recorded[Math.floor(rnd() * recorded.length)]);
  const user = { id: 'user-1', authenticated: true };
  return [
    ...GENERIC,
    ...picked.flatMap((x, i) => [i % 2 ? { ...(x as object), user } : x, variant(x, rnd), variant(x, rnd)]),
  ];
}

const NOW = new Date('2026-05-06T07:08:09.123Z');
beforeAll(() => {
  // $now(), $millis() and $today() read the clock: frozen for both evaluators
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(NOW);
});
afterAll(() => {
  vi.useRealTimers();
});

const fallbacks: string[] = [];

describe('the expressions the project ships give the same results on fast-jsonata as on jsonata', () => {
  it('finds them: .jsonata files and the JSONata fields of the route YAML, every folder with recorded inputs', () => {
    expect(SHIPPED.filter((s) => s.where.endsWith('.jsonata')).length).toBeGreaterThanOrEqual(30);
    expect(SHIPPED.filter((s) => s.where.endsWith('.yaml') || s.where.includes('.yaml')).length).toBeGreaterThanOrEqual(
      100,
    );
    for (const s of SHIPPED) expect(s.source, `${s.where}: a placeholder left`).not.toMatch(/\{\{/);
    for (const folder of [
      'hubvendor-payment',
      'hubvendor-foreign-exchange',
      'achvendor-batch-payment',
      'screenvendor-screening',
    ])
      expect(RECORDED.get(folder)?.length, folder).toBeGreaterThan(5);
  });

  it.each(SHIPPED.map((s, i) => [s.where, i] as const))('%s', async (_where, i) => {
    const { where, source, folder } = SHIPPED[i];
    const expr = jsonata(source);
    for (const [name, f] of Object.entries(FUNCTIONS)) expr.registerFunction(name, f.fn, f.signature);
    const fast = compileFast(expr.ast(), FUNCTIONS);
    if (!fast) {
      fallbacks.push(where);
      return;
    }
    const rnd = random(i + 1);
    const problems: string[] = [];
    for (const input of inputsFor(folder, rnd)) {
      const diff = await compareOn(source, { expr, fast }, input);
      if (diff) problems.push(diff);
      // a stand-in missing from FUNCTIONS would fail alike on both sides and prove nothing
      const reference: any = await Promise.resolve(expr.evaluate(structuredClone(input))).catch((e) => e);
      expect(reference?.code, `${where} calls a function the test does not register`).not.toBe('T1006');
    }
    expect(problems.slice(0, 3).join('\n\n'), `${where}: ${problems.length} divergence(s)`).toBe('');
  });

  it('most of them run on the fast path, and every expression of payment initiation does', () => {
    const payment = SHIPPED.filter((s) =>
      /initiate-payment-order\.yaml|payment-order-(request|response|rules)\.jsonata|payment-validation-response|standing-order-response|hubvendor-payment\/connector/.test(
        s.where,
      ),
    );
    expect(payment.length).toBeGreaterThan(10);
    expect(fallbacks.filter((w) => payment.some((p) => p.where === w))).toEqual([]);
    expect(fallbacks.length / SHIPPED.length, `fallbacks:\n${fallbacks.join('\n')}`).toBeLessThan(0.2);
  });
});
