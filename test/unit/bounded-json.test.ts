// boundedJson writes exactly JSON.stringify's text with the same replacer, and stops soon after
// the length it is given: the console keeps only the first bodyLimit characters of a body.

import { describe, expect, it } from 'vitest';
import { boundedJson } from '../../engine/pipeline/bounded-json.ts';

// the masking replacer's shape: primitives of members named like a credential replaced
const mask = (key: string, x: unknown) => (x !== null && typeof x !== 'object' && /secret/i.test(key) ? '****' : x);

describe('boundedJson', () => {
  const values: [string, unknown][] = [
    ['a string', 'plain "quoted" \u2028 text'],
    ['numbers', [1, -0, 1.5e300, NaN, Infinity]],
    ['null and booleans', { a: null, b: true, c: false }],
    [
      'undefined, functions and symbols',
      { u: undefined, f: () => 1, s: Symbol('x'), keep: 1, arr: [undefined, () => 1] },
    ],
    ['a Date (toJSON)', { at: new Date(0), nested: [{ at: new Date(86_400_000) }] }],
    ['boxed primitives', { n: new Number(3), s: new String('x'), b: new Boolean(false) }],
    ['escaped keys', { 'a"b': 1, 'line\nbreak': 2, ü: 3 }],
    ['secrets masked at any depth', { secret: 'hunter2', deep: { clientSecret: 42, list: [{ SECRET: true }] } }],
    ['a secret-named object is walked, not masked', { secret: { inner: 'shown' } }],
    ['empty containers', { a: {}, b: [], c: [[]] }],
    ['a Map and a Set', { m: new Map([[1, 2]]), s: new Set([1]) }],
  ];
  it.each(values)('writes %s as JSON.stringify does', (_, v) => {
    expect(boundedJson(v, 1_000_000, mask)).toBe(JSON.stringify(v, mask));
  });

  it('answers undefined where JSON.stringify does', () => {
    expect(boundedJson(undefined, 100, mask)).toBeUndefined();
    expect(boundedJson(() => 1, 100, mask)).toBeUndefined();
  });

  it('stops soon after the length given, with the first characters exactly', () => {
    const batch = {
      header: { id: 'b-1' },
      entries: Array.from({ length: 50_000 }, (_, i) => ({ i, name: `n${i}`, secret: 's3cr3t' })),
    };
    const full = JSON.stringify(batch, mask);
    const cut = boundedJson(batch, 4000, mask)!;
    expect(cut.length).toBeGreaterThan(4000);
    expect(cut.length).toBeLessThan(4200);
    expect(full.startsWith(cut)).toBe(true);
    expect(cut).not.toContain('s3cr3t');
  });
});
