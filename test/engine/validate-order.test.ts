// A validate step reports the errors of its rules in the order of the rules, whether a rule ran
// on the fast evaluator (synchronously) or in JSONata (asynchronously): callers and the docs show
// a stable list.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tmpProject } from '../helpers/tmp-project.ts';
import { startEngine, type RunningEngine } from '../../engine/engine.ts';
import { createLogger } from '../../engine/observability/logger.ts';
import { compileExpression } from '../../engine/expressions/expressions.ts';

// `$sort` is outside the fast subset: that rule runs in JSONata and settles after the others
const SLOW = "$sort(['b', 'a'])[0] = 'a' ? {'field': '/b', 'message': 'second'}";
const FAST = (field: string, message: string) => `{'field': '/${field}', 'message': '${message}'}`;
// tens of milliseconds of fast-path work (never an error): the rules after it run in a later slice
// (a range within engine.expressions.maxRange, 100,000 items)
const HEAVY = "$count([1..100000][$ % 7 = 0]) < 0 ? {'field': '/never', 'message': 'never'}";
const root = tmpProject({
  'values/environments/test.yaml': 'keys: {}\nproperties: {}\n',
  'routes/ordered.yaml': `id: ordered
from:
  http:
    method: POST
    path: /ordered
steps:
  - validate:
      rules:
        - errors: "${FAST('a', 'first')}"
        - errors: "${SLOW}"
        - errors: "${FAST('c', 'third')}"
        - errors: "[${FAST('d', 'fourth')}, ${FAST('e', 'fifth')}]"
`,
  'routes/sliced.yaml': `id: sliced
from:
  http:
    method: POST
    path: /sliced
steps:
  - validate:
      rules:
        - errors: "${FAST('a', 'first')}"
        - errors: "${HEAVY}"
        - errors: "${FAST('c', 'third')}"
        - errors: "${HEAVY}"
        - errors: "${SLOW}"
        - errors: "${HEAVY}"
        - errors: "${FAST('e', 'fifth')}"
`,
});

let engine: RunningEngine;
beforeAll(async () => {
  engine = await startEngine({ routes: ['routes'], root, env: 'test', port: 0, logger: createLogger('silent') });
});
afterAll(async () => {
  await engine?.close();
});

describe('validate rules', () => {
  it('one rule is evaluated by JSONata, the others by the fast evaluator', () => {
    expect(compileExpression(SLOW).fast).toBe(false);
    expect(compileExpression(FAST('a', 'first')).fast).toBe(true);
  });

  it('report their errors in the order of the rules', async () => {
    const res = await fetch(`${engine.url}/ordered`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { errors: { field: string }[] };
    expect(body.errors.map((e) => e.field)).toEqual(['/a', '/b', '/c', '/d', '/e']);
  });

  it('keep the errors found before the event loop ran between rules, in order', async () => {
    expect(compileExpression(HEAVY).fast).toBe(true);
    const res = await fetch(`${engine.url}/sliced`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { errors: { field: string }[] };
    expect(body.errors.map((e) => e.field)).toEqual(['/a', '/c', '/b', '/e']);
  });
});
