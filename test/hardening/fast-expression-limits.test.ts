// Route expressions on the fast path cannot freeze the process either: a huge nested range,
// compiled to plain functions rather than run by JSONata, fails its exchange with a 500 once it
// goes over engine.expressions.timeout, the log names the route, the step and the limit, and the
// engine answers the next request. The engine runs in a child process, as in
// expression-limits.test.ts: were its event loop frozen, the test would see a timeout instead.

import { describe, expect, it } from 'vitest';
import { tmpProject } from '../helpers/tmp-project.ts';
import { engineProcessFor, transformRoute, TIGHT_EXPRESSIONS_ENV } from './engine-process.ts';
import { compileExpression } from '../../engine/expressions/expressions.ts';

// ranges within engine.expressions.maxRange (100,000): only the clock stops 10^10 items of work
const RANGE = '[1..100000].[1..100000]';
// the size of the work comes from the request: a map over an input array
const MAP = '$count($map(body.items, function($i){ [1..body.n][$ < 0] }))';

const root = tmpProject({
  'values/environments/test.yaml': TIGHT_EXPRESSIONS_ENV,
  'routes/range.yaml': transformRoute('range', RANGE),
  'routes/mapped.yaml': transformRoute('mapped', MAP),
  'routes/ok.yaml': transformRoute('ok', '{"ok": true, "n": $count(body.items)}'),
});

const { post, logLine, logs } = engineProcessFor(root);

describe('runaway fast-path expressions', () => {
  it('the expressions under test are on the fast path', () => {
    expect(compileExpression(RANGE).fast).toBe(true);
    expect(compileExpression(MAP).fast).toBe(true);
  });

  it('a huge nested range fails its exchange at the time limit; the next request is served', async () => {
    const [runaway, next] = await Promise.all([
      post('/range'),
      new Promise((r) => setTimeout(r, 50)).then(() => post('/ok', { items: [1, 2] })),
    ]);
    expect(runaway.status).toBe(500);
    expect(runaway.ms).toBeLessThan(5_000);
    // the caller gets a generic problem: no expression text, no limit, no internals
    expect(runaway.body.detail).not.toMatch(/expression|timeout|range/i);
    expect(next.status).toBe(200);
    expect(next.body).toEqual({ ok: true, n: 2 });
    const line = await logLine('route range, steps[0].transform.expression');
    expect(line, logs().join('\n')).toBeDefined();
    expect(line).toMatch(/longer than 300 ms \(engine\.expressions\.timeout\)/);
  });

  it('a map whose work grows with the input stops at the limit, and small inputs still work', async () => {
    const items = Array.from({ length: 10_000 }, (_, i) => i);
    const r = await post('/mapped', { items, n: 100_000 });
    expect(r.status).toBe(500);
    expect(r.ms).toBeLessThan(5_000);
    const line = await logLine('route mapped, steps[0].transform.expression');
    expect(line, logs().join('\n')).toMatch(/longer than 300 ms/);
    const small = await post('/mapped', { items: [1, 2, 3], n: 10 });
    expect(small.status).toBe(200);
    expect(small.body).toBe(0);
  });
});
