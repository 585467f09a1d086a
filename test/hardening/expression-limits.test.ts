// Route expressions cannot freeze the process: a runaway JSONata expression (a recursive function,
// evaluated by JSONata itself, not the fast path) fails its exchange with a 500 once it goes over
// engine.expressions.timeout or .maxDepth, the log names the route, the step and the limit, and
// the engine answers the next request. The engine runs in a child process: were its event loop
// frozen, the test would see a timeout instead of freezing too.

import { describe, expect, it } from 'vitest';
import { tmpProject } from '../helpers/tmp-project.ts';
import { engineProcessFor, transformRoute, TIGHT_EXPRESSIONS_ENV } from './engine-process.ts';

const root = tmpProject({
  'values/environments/test.yaml': TIGHT_EXPRESSIONS_ENV,
  // a tail call: JSONata's trampoline loops forever without growing the stack, only the clock stops it
  'routes/spin.yaml': transformRoute('spin', '($f := function($x){ $f($x + 1) }; $f(0))'),
  // no base case and not a tail call: the nesting grows until the depth limit
  'routes/dive.yaml': transformRoute('dive', '($f := function($x){ 1 + $f($x) }; $f(0))'),
  'routes/ok.yaml': transformRoute('ok', '{"ok": true, "n": $count(body.items)}'),
});

const { post, logLine, logs } = engineProcessFor(root);

describe('runaway expressions', () => {
  it('an endless tail recursion fails its exchange at the time limit; the next request is served', async () => {
    const [runaway, next] = await Promise.all([
      post('/spin'),
      new Promise((r) => setTimeout(r, 50)).then(() => post('/ok', { items: [1, 2] })),
    ]);
    expect(runaway.status).toBe(500);
    expect(runaway.ms).toBeLessThan(5_000);
    // the caller gets a generic problem: no expression text, no limit, no internals
    expect(runaway.body.detail).not.toMatch(/expression|timeout|function/i);
    expect(next.status).toBe(200);
    expect(next.body).toEqual({ ok: true, n: 2 });
    const line = await logLine('route spin, steps[0].transform.expression');
    expect(line, logs().join('\n')).toBeDefined();
    expect(line).toMatch(/longer than 300 ms \(engine\.expressions\.timeout\)/);
  });

  it('a recursion without a base case fails its exchange at the depth limit', async () => {
    const r = await post('/dive');
    expect(r.status).toBe(500);
    expect(r.ms).toBeLessThan(5_000);
    const line = await logLine('route dive, steps[0].transform.expression');
    expect(line, logs().join('\n')).toBeDefined();
    expect(line).toMatch(/deeper than 200 \(engine\.expressions\.maxDepth\)/);
    expect((await post('/ok', { items: [] })).body).toEqual({ ok: true, n: 0 });
  });
});
