// A validate rule kept in a .jsonata file (`- file: transforms/...`): an `errors` rule read from
// the project, compiled once at load, with the file's line and column in a syntax error.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it, expect, afterAll, beforeAll } from 'vitest';
import type { RunningEngine } from '../../engine/engine.ts';
import { startProject, postJson } from '../helpers/project-engine.ts';
import { tmpProject } from '../helpers/tmp-project.ts';
import { lintFiles } from '../helpers/lint-files.ts';

const ROUTE = `id: orders
from:
  http:
    path: /orders
steps:
  - validate:
      rules:
        - assert: "$exists(body.id)"
          field: /id
          message: is required
        - file: transforms/shop/order-rules.jsonata
  - set: { values: { body: "{ 'ok': true }" } }
`;

const RULES = `/* at most 3 lines; each line's quantity positive */
body.lines#$i[quantity <= 0].{
  'index': $i,
  'field': '/lines/' & $i & '/quantity',
  'message': 'must be positive'
}
`;

const FILES = { 'routes/shop/orders.yaml': ROUTE, 'transforms/shop/order-rules.jsonata': RULES };

let engine: RunningEngine;
beforeAll(async () => {
  engine = await startProject(FILES);
});
afterAll(async () => {
  await engine?.close();
});

const post = (body: unknown) => postJson(engine, '/orders', body);

describe('validate: a rule in a .jsonata file', () => {
  it('adds its errors after the rules before it, each with its field and index', async () => {
    expect(await post({ id: 1, lines: [{ quantity: 2 }] })).toEqual({ status: 200, body: { ok: true } });
    const bad = await post({ lines: [{ quantity: 1 }, { quantity: 0 }, { quantity: -4 }] });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([
      { field: '/id', message: 'is required' },
      { field: '/lines/1/quantity', message: 'must be positive', index: 1 },
      { field: '/lines/2/quantity', message: 'must be positive', index: 2 },
    ]);
  });

  it("lint: a missing file, a syntax error at the file's line and column, and a rule that is two kinds", async () => {
    expect(await lintFiles(FILES)).toEqual([]);
    expect(
      await lintFiles({
        ...FILES,
        'routes/shop/orders.yaml': ROUTE.replace('order-rules.jsonata', 'order-rule.jsonata'),
      }),
    ).toEqual([
      "routes/shop/orders.yaml:11:17 file not found: transforms/shop/order-rule.jsonata; did you mean 'transforms/shop/order-rules.jsonata'? (at steps[0].validate.rules[1].file)",
    ]);
    expect(
      await lintFiles({
        ...FILES,
        'transforms/shop/order-rules.jsonata': RULES.replace("'index': $i,", "'index': $i,,"),
      }),
    ).toEqual([
      expect.stringMatching(
        /^routes\/shop\/orders\.yaml:11:17 transforms\/shop\/order-rules\.jsonata:3:\d+: JSONata: .* \(at steps\[0\]\.validate\.rules\[1\]\.file\)$/,
      ),
    ]);
    expect(
      await lintFiles({
        ...FILES,
        'routes/shop/orders.yaml': ROUTE.replace('        - file:', '          errors: "[]"\n        - file:'),
      }),
    ).toEqual([
      'routes/shop/orders.yaml:11:19 a rule is one of `assert`, `errors` or `file`, not `assert` and `errors`: make them two rules (at steps[0].validate.rules[0].errors)',
    ]);
    expect(
      await lintFiles({
        ...FILES,
        'routes/shop/orders.yaml': ROUTE.replace('transforms/shop/order-rules.jsonata', '"body.a > 1"'),
      }),
    ).toEqual([
      expect.stringContaining(
        "file not found: body.a > 1 (a rule's file is a .jsonata file; an inline rule goes in `errors` or `assert`)",
      ),
    ]);
  });
});

describe('a .jsonata file with {{properties}}', () => {
  const LIMIT = `/* at most {{max.lines}} lines */
$count(body.lines) > {{max.lines}} ? { 'field': '/lines', 'message': 'at most {{max.lines}} lines' }
`;
  const files = {
    'routes/shop/orders.yaml': ROUTE.replace('id: orders\n', 'id: orders\nvalues: shop\n'),
    'transforms/shop/order-rules.jsonata': LIMIT,
    'values/shop.values.yaml': 'max.lines: 2\n',
  };

  it('takes them from the values of the route that names it, and a reload sees a values edit that reaches only the file', async () => {
    const root = tmpProject(files);
    const e = await startProject(root);
    const send = (n: number) => postJson(e, '/orders', { id: 1, lines: Array(n).fill({}) });
    try {
      expect((await send(2)).status).toBe(200);
      expect(await send(3)).toMatchObject({
        status: 400,
        body: { errors: [{ field: '/lines', message: 'at most 2 lines' }] },
      });
      writeFileSync(join(root, 'values/shop.values.yaml'), 'max.lines: 3\n');
      expect(await e.reload('test')).toMatchObject({ ok: true, changed: ['orders'] });
      expect((await send(3)).status).toBe(200);
    } finally {
      await e.close();
    }
  });

  it('lint: an unknown property is said at its line and column in the file, naming the route', async () => {
    expect(await lintFiles(files)).toEqual([]);
    expect(
      await lintFiles({
        ...files,
        'transforms/shop/order-rules.jsonata': LIMIT.replace('> {{max.lines}}', '> {{max.line}}'),
      }),
    ).toEqual([
      "transforms/shop/order-rules.jsonata:2:22 unknown property 'max.line' in values 'shop'; did you mean 'max.lines'? (the values of route orders, which names this file at steps[0].validate.rules[1].file)",
    ]);
  });
});
