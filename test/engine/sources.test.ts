// cron and direct sources, and the choice/split/fail/set steps, on a small project of their own.
import { describe, it, expect, afterAll } from 'vitest';
import { startEngine, type RunningEngine } from '../../engine/engine.ts';
import { createLogger } from '../../engine/observability/logger.ts';
import { tmpProject } from '../helpers/tmp-project.ts';

const root = tmpProject({
  'values/demo.values.yaml': 'greeting: hello\n',
  'routes/tick.yaml': `id: tick
values: demo
from:
  cron:
    schedule: "* * * * * *"
    body: { n: 1 }
steps:
  - to-direct:
      route: count
`,
  'routes/count.yaml': `id: count
values: demo
from:
  direct: {}
steps:
  - set:
      values:
        vars.greeting: "'{{greeting}}'"
  - split:
      items: "[1, 2, 3]"
      steps:
        - transform:
            expression: "body * 10"
  - choice:
      when:
        - condition: "$sum(body) > 50"
          steps:
            - set: { values: { body: "{'total': $sum(body), 'greeting': vars.greeting}" } }
          stop: true
      otherwise:
        - fail: { code: GC054, detail: "'never'" }
  - fail: { code: GC004, detail: "'not reached: the branch stopped the route'" }
`,
});

let engine: RunningEngine;
afterAll(async () => {
  await engine?.close();
});

describe('sources', () => {
  it('direct routes run in-process; choice, split, set and stop', async () => {
    engine = await startEngine({ routes: ['routes'], root, port: 0, logger: createLogger('silent') });
    const r = await engine.call('count', { body: {} });
    expect(r.body).toEqual({ total: 60, greeting: 'hello' });
  });

  it('cron runs the route on its schedule', async () => {
    const count = () =>
      engine.services.metrics.requests
        .get()
        .then((m) => m.values.filter((v) => v.labels.route === 'tick').reduce((a, v) => a + v.value, 0));
    const before = await count();
    // two ticks of a schedule that fires every second, polled with a generous deadline
    const deadline = Date.now() + 10_000;
    while ((await count()) - before < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect((await count()) - before).toBeGreaterThanOrEqual(2);
  });

  it('an unknown direct route is an error, not a crash', async () => {
    await expect(engine.call('nope', {})).rejects.toThrow(/no route 'nope'/);
  });
});
