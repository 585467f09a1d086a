// Long steps let other requests through: a validate step whose rules, or transform steps whose
// mappings, each run for tens of milliseconds yield to the event loop between them, so a
// /health/live probe sent meanwhile waits for about one rule, not for the whole route. So do many
// short steps (each shorter than a slice, but not together): a step counts the exchange's whole
// stretch of work, not only its own. The engine runs in a child process, so the probe sees its
// event loop from outside. The bound is relative (the probe's worst wait against the whole
// request), so a slow machine does not make it flaky.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tmpProject } from '../helpers/tmp-project.ts';
import { startEngineProcess, type EngineProcess } from './engine-process.ts';
import { compileExpression } from '../../engine/expressions/expressions.ts';
import { whileProbing } from '../helpers/probe.ts';

// about 20-60 ms of fast-path work each, depending on the machine (three ranges within
// engine.expressions.maxRange, 100,000 items: one of 300,000 is refused)
const HEAVY = '$count([1..100000][$ % 7 = 0]) + $count([1..100000][$ % 7 = 0]) + $count([1..100000][$ % 7 = 0])';
const RULES = 6;
// about 1-2 ms each: below SLICE_MS, so only the stretch's time, not a step's own, makes them yield
const LIGHT = '$count([1..20000][$ % 7 = 0])';
const SHORT_STEPS = 40;

const route = (id: string, steps: string) =>
  `id: ${id}\nfrom:\n  http:\n    method: POST\n    path: /${id}\nsteps:\n${steps}`;
const root = tmpProject({
  'values/environments/test.yaml': 'keys: {}\nproperties: {}\n',
  'routes/rules.yaml': route(
    'rules',
    `  - validate:\n      rules:\n${Array.from({ length: RULES }, () => `        - errors: "${HEAVY} < 0 ? {'field': '/', 'message': 'never'}"\n`).join('')}  - transform:\n      expression: "{'ok': true}"\n`,
  ),
  'routes/short.yaml': route(
    'short',
    `${Array.from({ length: SHORT_STEPS }, (_, i) => `  - transform:\n      expression: "${LIGHT}"\n      into: vars.n${i}\n`).join('')}  - transform:\n      expression: "{'ok': true, 'n': vars.n0}"\n`,
  ),
  'routes/mappings.yaml': route(
    'mappings',
    `${Array.from({ length: RULES }, (_, i) => `  - transform:\n      expression: "${HEAVY}"\n      into: vars.n${i}\n`).join('')}  - transform:\n      expression: "{'ok': true, 'n': vars.n0}"\n`,
  ),
});

let engine: EngineProcess;
beforeAll(async () => {
  engine = await startEngineProcess(root, 'test');
});
afterAll(async () => {
  await engine?.close();
});

const probed = (path: string) => whileProbing(engine.url, path);

describe('steps that run long let other requests through', () => {
  it('the work under test is on the fast path (synchronous)', () => {
    expect(compileExpression(HEAVY).fast).toBe(true);
    expect(compileExpression(LIGHT).fast).toBe(true);
  });

  it.each(['/rules', '/mappings', '/short'])(
    '%s: a probe waits for about one step, not for the route',
    async (path) => {
      await probed(path); // warm-up (JIT)
      const r = await probed(path);
      expect(r.status, JSON.stringify(r.answer)).toBe(200);
      expect(r.answer.ok).toBe(true);
      // six equal slices: without yielding, the probe waits for (nearly) the whole request
      expect(
        r.worstProbeMs,
        `worst probe ${r.worstProbeMs.toFixed(1)} ms, request ${r.requestMs.toFixed(1)} ms, ${r.probes} probes`,
      ).toBeLessThan(r.requestMs / 2);
      expect(r.probes).toBeGreaterThan(2);
    },
  );
});
