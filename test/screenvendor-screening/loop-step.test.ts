// The `loop` step kind (engine/steps/loop.ts): passes while a condition holds, the counter, the
// bound with on-limit fail/stop, nesting inside split, and lint of its config.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, lintProject, type RunningEngine } from '../../engine/engine.ts';
import { createLogger } from '../../engine/observability/logger.ts';
import { tmpProject } from '../helpers/tmp-project.ts';

const route = (id: string, steps: string) => `id: ${id}
from:
  direct: {}
steps:
${steps}`;

const FILES = {
  'routes/count.yaml': route(
    'count',
    `  - set:
      values:
        vars.seen: "[]"
  - loop:
      while: "vars.iteration < body.n"
      max-iterations: 10
      steps:
        - set:
            values:
              vars.seen: "$append(vars.seen, vars.iteration)"
  - transform:
      expression: "{ 'seen': vars.seen, 'passes': vars.iteration }"
`,
  ),
  'routes/limit.yaml': route(
    'limit',
    `  - loop:
      while: "true"
      max-iterations: 3
      steps:
        - set: { values: { vars.x: "vars.iteration" } }
`,
  ),
  'routes/limit-stop.yaml': route(
    'limit-stop',
    `  - loop:
      while: "true"
      max-iterations: "4"
      on-limit: stop
      counter: page
      steps:
        - set: { values: { vars.last: "vars.page" } }
  - transform:
      expression: "{ 'last': vars.last, 'page': vars.page }"
`,
  ),
  'routes/pages.yaml': route(
    'pages',
    `  - split:
      items: body.lists
      steps:
        - set: { values: { vars.acc: "[]" } }
        - loop:
            while: "vars.iteration = 0 or $boolean(vars.next)"
            steps:
              - set:
                  values:
                    vars.acc: "$append(vars.acc, body[$$.vars.iteration])"
                    vars.next: "vars.iteration + 1 < $count(body)"
        - transform: { expression: "vars.acc" }
`,
  ),
};

let engine: RunningEngine;
beforeAll(async () => {
  const root = tmpProject(FILES);
  engine = await startEngine({
    routes: ['routes'],
    root,
    logger: createLogger('silent'),
    simulated: false,
    port: 0,
    processEnv: {},
  });
});
afterAll(() => engine?.close());

describe('loop step', () => {
  it('runs while the condition holds, counting passes in vars.iteration', async () => {
    expect((await engine.call('count', { body: { n: 3 } })).body).toEqual({ seen: [0, 1, 2], passes: 3 });
    expect((await engine.call('count', { body: { n: 0 } })).body).toEqual({ seen: [], passes: 0 });
  });

  it('fails with a 502 vendor error past max-iterations', async () => {
    await expect(engine.call('limit', { body: {} })).rejects.toMatchObject({
      kind: 'vendor',
      status: 502,
      detail: expect.stringContaining('3 iterations'),
    });
  });

  it('on-limit stop keeps what was gathered; counter renames the variable', async () => {
    expect((await engine.call('limit-stop', { body: {} })).body).toEqual({ last: 3, page: 4 });
  });

  it('works inside split on each item (paging per alert)', async () => {
    expect((await engine.call('pages', { body: { lists: [[1, 2, 3], [4], []] } })).body).toEqual([[1, 2, 3], [4], []]);
  });

  it('lint reports a bad config at its line', async () => {
    const root = tmpProject({
      'routes/bad.yaml': route(
        'bad',
        `  - loop:
      whilst: "true"
      max-iterations: 0
      steps: []
`,
      ),
    });
    const diags = await lintProject({ routes: ['routes'], root, logger: createLogger('silent'), processEnv: {} });
    const text = diags.map((d) => `${d.line}: ${d.message}`).join('\n');
    expect(text).toMatch(/whilst/);
    expect(text).toMatch(/max-iterations|minimum|>= 1/);
    expect(diags.every((d) => d.file.endsWith('bad.yaml') && d.line >= 5)).toBe(true);
  });
});
