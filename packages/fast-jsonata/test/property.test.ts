// Property-based differential test (fast-check): expressions generated from a grammar of the
// supported subset (paths with predicates, positional bindings and group-by, operators,
// conditionals, built-ins, constructors, blocks with bindings, $map/$filter with lambdas, ~>
// chains) evaluated on generated documents by fast-jsonata and by jsonata. The seed is fixed and
// the run bounded (numRuns, and a time limit that ends it early on a loaded machine), so every run
// tries the same cases; a divergence fails with the shrunk expression, input and bindings.

import fc from 'fast-check';
import jsonata from 'jsonata';
import { describe, expect, it } from 'vitest';
import { compareOn, compile } from './support/compare.ts';

const NAMES = ['a', 'b', 'c', 'n', 'x', 'items', 'price', 'tags'];
const FUNCTIONS_1 = [
  '$string',
  '$count',
  '$sum',
  '$exists',
  '$boolean',
  '$not',
  '$uppercase',
  '$lowercase',
  '$length',
  '$keys',
  '$type',
  '$number',
  '$trim',
  '$abs',
  '$floor',
  '$round',
  '$max',
  '$min',
  '$average',
  '$distinct',
  '$reverse',
  '$merge',
];
const FUNCTIONS_2 = [
  '$append',
  '$lookup',
  '$join',
  '$substring',
  '$substringBefore',
  '$substringAfter',
  '$contains',
  '$split',
  '$merge',
  '$pad',
  '$round',
  '$spread',
  '$zip',
];
const OPERATORS = ['+', '-', '*', '/', '%', '=', '!=', '<', '<=', '>', '>=', '&', 'and', 'or', 'in'];

const name = fc.constantFrom(...NAMES);
const leaf = fc.oneof(
  name,
  fc.constantFrom(
    '1',
    '0',
    '-2',
    '0.5',
    '1e21',
    '"a"',
    '""',
    '"abc"',
    '"A"',
    '" Ab "',
    'true',
    'false',
    'null',
    '$',
    '$$',
    '$v',
    '$i',
    '[]',
    '{}',
  ),
  fc.integer({ min: -1000, max: 1000 }).map(String),
  fc.string({ maxLength: 4 }).map((s) => JSON.stringify(s)),
);

/** The grammar: each alternative is a form fast-jsonata compiles (others fall back and are skipped). */
const { expr } = fc.letrec<{ expr: string; path: string }>((tie) => ({
  path: fc
    .tuple(
      name,
      fc.array(
        fc.tuple(
          fc.oneof(
            name,
            fc.constantFrom('*', '$'),
            tie('expr').map((e) => `(${e})`),
          ),
          fc.constantFrom('', '', '', '[0]', '[-1]', '[]', '#$i'),
          fc.option(tie('expr'), { nil: undefined }),
        ),
        { maxLength: 3 },
      ),
    )
    .map(
      ([first, steps]) =>
        first + steps.map(([step, suffix, pred]) => `.${step}${suffix}${pred ? `[${pred}]` : ''}`).join(''),
    ),
  expr: fc.oneof(
    { depthSize: 'small', maxDepth: 4 },
    leaf,
    tie('path'),
    fc.tuple(tie('expr'), fc.constantFrom(...OPERATORS), tie('expr')).map(([l, op, r]) => `(${l} ${op} ${r})`),
    fc
      .tuple(tie('expr'), tie('expr'), fc.option(tie('expr'), { nil: undefined }))
      .map(([c, t, e]) => `(${c} ? ${t}${e === undefined ? '' : ` : ${e}`})`),
    fc.tuple(fc.constantFrom(...FUNCTIONS_1), tie('expr')).map(([f, a]) => `${f}(${a})`),
    fc.tuple(fc.constantFrom(...FUNCTIONS_2), tie('expr'), tie('expr')).map(([f, a, b]) => `${f}(${a}, ${b})`),
    fc.array(tie('expr'), { maxLength: 3 }).map((xs) => `[${xs.join(', ')}]`),
    fc
      .array(
        fc.tuple(
          fc.oneof(
            name.map((n) => JSON.stringify(n)),
            tie('expr'),
          ),
          tie('expr'),
        ),
        { maxLength: 3 },
      )
      .map((kv) => `{${kv.map(([k, v]) => `${k}: ${v}`).join(', ')}}`),
    fc
      .tuple(tie('path'), fc.constantFrom('$string($)', '"k"', 'a', '$string($i)'), tie('expr'))
      .map(([p, k, v]) => `${p}{${k}: ${v}}`),
    // objects merged: from constructors, the data and the context
    fc
      .tuple(fc.constantFrom('$', 'a', 'items', `{"a": 1}`, `{"x": $}`), tie('expr'), name)
      .map(([o, v, k]) => `$merge([${o}, {"${k}": ${v}}])`),
    tie('expr').map((e) => `-${e}`),
    fc
      .tuple(fc.constantFrom('$map', '$filter'), tie('expr'), tie('expr'))
      .map(([f, xs, body]) => `${f}(${xs}, function($v, $i){${body}})`),
    fc.tuple(tie('expr'), tie('expr')).map(([v, body]) => `($v := ${v}; ${body})`),
    fc.tuple(tie('expr'), tie('expr')).map(([arg, body]) => `($f := function($v){${body}}; $f(${arg}))`),
    fc
      .tuple(
        tie('expr'),
        fc.constantFrom('$string()', '$count()', '$exists()', '$uppercase()', '$append(1)', '$join(",")'),
      )
      .map(([e, f]) => `${e} ~> ${f}`),
    fc.tuple(tie('expr'), fc.constantFrom(0, 1, 2)).map(([e, lo]) => `[${lo}..${e}]`),
  ),
}));

const scalar = fc.oneof(
  fc.constantFrom<unknown>(0, 1, 2, -1, 0.5, 1e21, 'a', 'b', 'B', 'Ab', '', 'abc', '1', ' x ', true, false, null),
  fc.integer({ min: -50, max: 50 }),
  fc.string({ maxLength: 5 }),
);
const { doc } = fc.letrec<{ doc: unknown }>((tie) => ({
  doc: fc.oneof(
    { depthSize: 'small', maxDepth: 4 },
    scalar,
    fc.array(tie('doc'), { maxLength: 4 }),
    fc.dictionary(name, tie('doc'), { maxKeys: 4 }),
  ),
}));
const bindings = fc.option(fc.record({ v: doc }), { nil: undefined });

describe('generated expressions on generated documents (fast-check, fixed seed)', () => {
  it('fast-jsonata and jsonata agree on the value, or both fail', async () => {
    let compared = 0;
    await fc.assert(
      fc.asyncProperty(expr, doc, bindings, async (src, input, binds) => {
        let compiled: ReturnType<typeof compile>;
        try {
          compiled = compile(src);
        } catch {
          return; // not valid JSONata
        }
        if (!compiled.fast) return;
        compared++;
        // error codes may differ when both fail: JSONata evaluates the members of array and
        // object constructors concurrently and reports whichever error settles first
        const diff = await compareOn(src, { expr: compiled.expr, fast: compiled.fast }, input, binds, false);
        if (diff) throw new Error(`fast-jsonata diverges from jsonata:\n${diff}`);
      }),
      { seed: 20261127, numRuns: 3000, interruptAfterTimeLimit: 10_000 },
    );
    // most generated expressions are on the fast path: the property tests the fast path, not parsing
    expect(compared).toBeGreaterThan(300);
  }, 60_000);

  it('error codes agree when the expression builds no array or object (no concurrent members)', async () => {
    let failures = 0;
    await fc.assert(
      fc.asyncProperty(
        expr.filter((s) => !/[[{]/.test(s)),
        doc,
        async (src, input) => {
          let compiled: ReturnType<typeof compile>;
          try {
            compiled = compile(src);
          } catch {
            return;
          }
          if (!compiled.fast) return;
          const reference = await Promise.resolve(compiled.expr.evaluate(structuredClone(input))).then(
            () => false,
            () => true,
          );
          if (reference) failures++;
          const diff = await compareOn(src, { expr: compiled.expr, fast: compiled.fast }, input);
          if (diff) throw new Error(`fast-jsonata diverges from jsonata:\n${diff}`);
        },
      ),
      { seed: 20261128, numRuns: 1500, interruptAfterTimeLimit: 5_000 },
    );
    // the property saw errors to compare, not only values
    expect(failures).toBeGreaterThan(20);
  }, 30_000);

  it('the grammar yields valid JSONata', () => {
    const sample = fc.sample(expr, { seed: 1, numRuns: 200 });
    const valid = sample.filter((s) => {
      try {
        jsonata(s);
        return true;
      } catch {
        return false;
      }
    });
    expect(valid.length).toBeGreaterThan(150);
  });
});
