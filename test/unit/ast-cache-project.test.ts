// Every JSONata expression of the project (routes, transforms, values, route tests' asserts, as
// `engine lint` compiles them without an environment and for the sandbox), read back from the AST
// cache's encoding, is the tree jsonata parsed: the same own properties in the same order
// (undefined ones too), the same values (regex literals, numbers to the bit), no part shared where
// the fresh tree has none, and nothing inherited but the parser's own fields; and the fast forms
// compiled from both give the same results.

import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { FastFn } from '@bank-integration-engine/fast-jsonata';

const parsedSources = vi.hoisted(() => new Set<string>());
vi.mock('jsonata', async (original) => {
  const real = (await original<{ default: typeof import('jsonata') }>()).default;
  const counting = (source: string, options?: Parameters<typeof real>[1]) => {
    parsedSources.add(source);
    return real(source, options);
  };
  return { default: counting };
});

const jsonata = (await import('jsonata')).default;
const { compileFast } = await import('@bank-integration-engine/fast-jsonata');
const { encodeAst, decodeAst } = await import('../../engine/expressions/ast-cache.ts');
const { FUNCTIONS } = await import('../../engine/core/functions.ts');
const { ENGINE_DEFAULTS } = await import('../../engine/config/engine-settings.ts');
const { lintProject } = await import('../../engine/engine.ts');
const { loadExtensions } = await import('../../engine/cli/extensions.ts');
const { sandboxExtension } = await import('../../sandbox/extension.ts');
const { createLogger } = await import('../../engine/observability/logger.ts');
const { setCacheFolder } = await import('../../engine/core/disk-cache.ts');
const { settle, expectSame, clone } = await import('../../packages/fast-jsonata/test/support/compare.ts');
const { recordedInputs } = await import('../fast-jsonata/shipped-expressions.ts');

/** Exchanges the route tests record (requests, stub answers): 12 of them, spread over the folders. */
const RECORDED = (() => {
  const all = [...recordedInputs().values()].flat();
  return Array.from({ length: 12 }, (_, i) => all[Math.floor((i * all.length) / 12)]);
})();

/** The parser's symbol-table fields a token node inherits (ast-cache.ts: no evaluator reads them). */
const PARSER_FIELDS = ['id', 'value', 'lbp', 'nud', 'led'];

/**
 * Whether `revived` is `fresh` as far as any reader of own properties can tell, and structured
 * alike: each object of one stands for exactly one object of the other.
 */
function sameTree(fresh: unknown, revived: unknown, where: string, pairs = new Map<object, object>()): void {
  if (typeof fresh !== 'object' || fresh === null) {
    expect(Object.is(fresh, revived), `${where}: ${String(fresh)} / ${String(revived)}`).toBe(true);
    return;
  }
  expect(typeof revived === 'object' && revived !== null, where).toBe(true);
  const paired = pairs.get(fresh);
  if (paired !== undefined) {
    expect(paired, `${where}: shared in the fresh tree`).toBe(revived);
    return;
  }
  expect([...pairs.values()].includes(revived as object), `${where}: shared in the revived tree only`).toBe(false);
  pairs.set(fresh, revived as object);
  if (fresh instanceof RegExp) {
    expect(revived, where).toBeInstanceOf(RegExp);
    const r = revived as RegExp;
    expect([r.source, r.flags, r.lastIndex], where).toEqual([fresh.source, fresh.flags, fresh.lastIndex]);
    return;
  }
  expect(Array.isArray(revived), where).toBe(Array.isArray(fresh));
  expect(Object.getPrototypeOf(revived), where).toBe(Array.isArray(fresh) ? Array.prototype : Object.prototype);
  expect(Reflect.ownKeys(revived as object), `${where}: own properties`).toEqual(Reflect.ownKeys(fresh));
  if (!Array.isArray(fresh))
    for (const k in fresh) if (!Object.hasOwn(fresh, k)) expect(PARSER_FIELDS, `${where}: inherits ${k}`).toContain(k);
  for (const k of Object.keys(fresh)) sameTree((fresh as any)[k], (revived as any)[k], `${where}.${k}`, pairs);
}

/** Field names, variables and called functions of the tree: sample inputs give each of them values. */
function namesIn(
  ast: unknown,
  into = { names: new Set<string>(), vars: new Set<string>(), called: new Set<string>() },
) {
  if (ast !== null && typeof ast === 'object') {
    const n = ast as Record<string, any>;
    if (n.type === 'name' && typeof n.value === 'string') into.names.add(n.value);
    if (n.type === 'variable' && typeof n.value === 'string' && n.value !== '' && n.value !== '$')
      into.vars.add(n.value);
    if (n.type === 'function' && n.procedure?.type === 'variable') into.called.add(n.procedure.value);
    for (const v of Object.values(n)) namesIn(v, into);
  }
  return into;
}

/**
 * Inputs of several shapes over the expression's own field names (objects, arrays, strings,
 * numbers, nothing), its variables bound, the last of them binding the functions it calls too,
 * which sends the fast form to JSONata evaluating the tree itself (fast-jsonata's fallback); then
 * exchanges the route tests record.
 */
function inputsFor(ast: unknown): { input: unknown; bindings?: Record<string, unknown> }[] {
  const { names, vars, called } = namesIn(ast);
  const list = [...names];
  const leaf = (i: number, k: number) =>
    [`v${i}`, i + k, i % 2 === 0, null, 'EUR', '2026-01-02', `${i}.50`][(i + k) % 7];
  const obj = (depth: number, k: number): Record<string, unknown> =>
    Object.fromEntries(
      list.map((name, i) => [
        name,
        depth === 0
          ? leaf(i, k)
          : (i + k) % 3 === 0
            ? [obj(depth - 1, k + 1), obj(depth - 1, k + 2)]
            : obj(depth - 1, k),
      ]),
    );
  const value = (i: number) => (i % 2 ? `b${i}` : { amount: i, currency: 'USD' });
  const bindings = Object.fromEntries([...vars].filter((v) => !called.has(v)).map((v, i) => [v, value(i)]));
  const shadowing = Object.fromEntries([...vars].map((v, i) => [v, value(i)]));
  const deep = list.length <= 12 ? 2 : 1;
  return [
    { input: {} },
    { input: obj(deep, 0) },
    { input: obj(deep, 1), bindings },
    { input: [obj(1, 0), obj(1, 1)], bindings },
    { input: 'text' },
    { input: obj(1, 2), bindings: shadowing },
    ...RECORDED.map((input) => ({ input })),
  ];
}

/** What an evaluation gave, comparable across evaluations: a value's JSON form, an error's code. */
function gave(o: Awaited<ReturnType<typeof settle>>): string {
  return o.ok ? (JSON.stringify(o.value) ?? 'undefined') : `error ${o.error?.code ?? o.error?.message}`;
}

const limits = ENGINE_DEFAULTS.expressions;

/**
 * Beside the project's: the fast path's constructs the project does not use (yet), regex literals
 * and numbers JSON has no form for above all.
 */
const MORE = [
  '$contains(body.iban, /^DE[0-9]{2}/i)',
  '$contains(body.x, /l+/m) and $contains(body.x, /h\\/x/)',
  'body.items[price > 5]{name: $sum(qty)}',
  'body.items#$i[$i > 0].name',
  'body.items[qty > 1]#$j.{"n": name, "j": $j}',
  '$map(body.items, function($v, $i) { $v.price * $i })',
  '($f := function($x) { $x * 2 }; $map(body.items.price, $f))',
  '$filter(body.items, function($v) { $v.qty > 1 }).name',
  '[-0, -1.5, 0.1, 1e21, 5e-324, [1..3]]',
  'body.items[0].tags[-1]',
  'body.obj.* ~> $count()',
  'body.**.v',
  '$$.body.`content-type`',
  '{ "a": body.n + 1, "b": [body.items.price], body.c: 1 }',
  'body.items.[price, qty]',
  '$sum(body.items.(price * qty))',
  '($max := 3; body.items[][price > 1 and qty < $max])',
];

describe('the AST cache on every expression of the project', () => {
  const sources: string[] = [];
  beforeAll(async () => {
    setCacheFolder(undefined);
    const extensions = await loadExtensions([sandboxExtension()], ['node', 'engine', 'lint']);
    for (const env of [undefined, 'sandbox']) {
      const diags = await lintProject({
        routes: ['routes'],
        env,
        extensions,
        logger: createLogger('silent'),
        processEnv: {},
      });
      expect(diags.filter((d) => d.severity !== 'warning')).toEqual([]);
    }
    sources.push(...parsedSources, ...MORE);
  }, 120_000);

  it('reads back exactly the tree jsonata parsed, for each one the fast path takes', () => {
    let cached = 0;
    for (const source of sources) {
      const fresh = jsonata(source).ast();
      if (!compileFast(fresh, FUNCTIONS, limits)) {
        expect(MORE, 'a construct the fast path no longer takes').not.toContain(source);
        continue;
      }
      const text = encodeAst(fresh);
      expect(text, source).toBeDefined();
      sameTree(fresh, decodeAst(text!), source);
      cached++;
    }
    // the project's expressions are many, and most of them are fast
    expect(sources.length).toBeGreaterThan(150);
    expect(cached).toBeGreaterThan(sources.length * 0.8);
  });

  it('compiles fast forms that give the same results from the read-back tree', async () => {
    let compared = 0;
    for (const source of sources) {
      const fresh = jsonata(source).ast();
      const fromFresh = compileFast(fresh, FUNCTIONS, limits);
      if (!fromFresh) continue;
      const fromCache = compileFast(decodeAst(encodeAst(fresh)!), FUNCTIONS, limits) as FastFn;
      expect(fromCache, source).toBeDefined();
      for (const { input, bindings } of inputsFor(fresh)) {
        const expected = await settle(() => fromFresh(clone(input), clone(bindings)));
        const actual = await settle(() => fromCache(clone(input), clone(bindings)));
        // $uuid(), $now(): a second evaluation of the fresh form says whether results can agree at all
        const again = await settle(() => fromFresh(clone(input), clone(bindings)));
        if (gave(again) !== gave(expected)) continue;
        expectSame(expected, actual, `${source} on ${JSON.stringify(input).slice(0, 200)}`);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(sources.length * 3);
  });
});
