// Issue 24: a route expression whose callback is a built-in ($string, $boolean, $append...) kept
// the event loop for as long as its list lasted (`$count($map([1..9999999], $string))`: 13.4 s, then
// a 200). With the default limits (1,000 ms, ranges of 100,000), a range over the bound is refused
// at once and a request body's array mapped with a built-in stops at the time limit: the caller
// gets the generic 500 of an expression over a limit, the log names the route and the limit, and
// `/health/live`, probed from a second connection all the while, never waits more than ~1.5 s.

import { describe, expect, it } from 'vitest';
import { tmpProject } from '../helpers/tmp-project.ts';
import { whileProbing } from '../helpers/probe.ts';
import { engineProcessFor, transformRoute } from './engine-process.ts';

const root = tmpProject({
  // no engine settings: the defaults are under test
  'values/environments/test.yaml': 'keys: {}\nproperties: {}\n',
  'routes/reported-map.yaml': transformRoute('reported-map', '$count($map([1..9999999], $string))'),
  'routes/reported-filter.yaml': transformRoute('reported-filter', '$count($filter([1..9999999], $boolean))'),
  'routes/reported-join.yaml': transformRoute('reported-join', '$join($map([1..9999999], $string))'),
  // quadratic work from the body with a built-in callback: minutes without the check
  'routes/body-reduce.yaml': transformRoute('body-reduce', '$count($reduce(body.items, $append))'),
  'routes/body-map.yaml': transformRoute('body-map', '$count($map(body.items, $string))'),
});

const { post, logLine, logs, url } = engineProcessFor(root);

describe('expressions with built-in callbacks keep the limits', () => {
  it.each(['reported-map', 'reported-filter', 'reported-join'])(
    '/%s: the range over engine.expressions.maxRange is refused with a 500 at once',
    async (id) => {
      const r = await whileProbing(url(), `/${id}`);
      expect(r.status).toBe(500);
      // the caller gets a generic problem: no expression text, no limit, no internals
      expect(JSON.stringify(r.answer)).not.toMatch(/expression|range|maxRange|\$string/i);
      expect(r.requestMs).toBeLessThan(3_000);
      expect(r.worstProbeMs).toBeLessThan(1_500);
      const line = await logLine(`route ${id}, steps[0].transform.expression`);
      expect(line, logs().join('\n')).toMatch(/a range has more than 100000 items \(engine\.expressions\.maxRange\)/);
    },
  );

  it('a body array folded with $append stops at the time limit; the event loop keeps turning', async () => {
    const items = Array.from({ length: 100_000 }, () => 0);
    const r = await whileProbing(url(), '/body-reduce', JSON.stringify({ items }));
    expect(r.status).toBe(500);
    expect(r.requestMs).toBeLessThan(3_000);
    expect(r.worstProbeMs).toBeLessThan(1_500);
    expect(r.probes).toBeGreaterThan(0);
    const line = await logLine('route body-reduce, steps[0].transform.expression');
    expect(line, logs().join('\n')).toMatch(/evaluation ran longer than 1000 ms \(engine\.expressions\.timeout\)/);
    // the same route with a small body, and a batch-sized body array mapped with $string, are answered
    expect(await post('/body-reduce', { items: [1, 2, 3] })).toMatchObject({ status: 200, body: 3 });
    expect(await post('/body-map', { items: items.slice(0, 5_000) })).toMatchObject({ status: 200, body: 5_000 });
  });
});
