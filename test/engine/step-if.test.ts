// `if: <JSONata>` beside any step's kind: the step runs only when the condition is truthy, as the
// one branch of a choice without otherwise runs it. Lint, the editor schema and the console's
// diagram (a choice with that branch) know it.

import { describe, it, expect, afterAll, beforeAll } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import type { RunningEngine } from '../../engine/engine.ts';
import { startProject, postJson } from '../helpers/project-engine.ts';
import { routeJsonSchema } from '../../engine/dsl/route-schema.ts';
import { routeGraph } from '../../engine/console/route-graph.ts';
import { tmpProject } from '../helpers/tmp-project.ts';
import { lintFiles } from '../helpers/lint-files.ts';

const ROUTE = `id: guarded
from:
  http:
    path: /guarded
steps:
  - if: "body.big"
    set:
      values:
        vars.size: "'big'"
  # a regular expression: JSONata's own evaluator, which may answer with a promise
  - validate:
      rules:
        - assert: "$contains(body.code, /^[A-Z]{3}$/)"
          field: /code
          message: must be three capitals
    if: "$exists(body.code)"
  - if: "$contains(body.note, /urgent/)"
    to-direct:
      route: mark
      into: vars.mark
  - set:
      values:
        body: "{ 'size': vars.size, 'mark': vars.mark }"
`;

const MARK = `id: mark
from:
  direct: {}
steps:
  - set: { values: { body: "'marked'" } }
`;

const FILES = { 'routes/demo/guarded.yaml': ROUTE, 'routes/demo/mark.yaml': MARK };

let engine: RunningEngine;
beforeAll(async () => {
  engine = await startProject(FILES);
});
afterAll(async () => {
  await engine?.close();
});

const post = (body: unknown) => postJson(engine, '/guarded', body);

const lint = lintFiles;

describe('if: beside a step', () => {
  it('runs the step only when the condition is truthy', async () => {
    expect(await post({})).toEqual({ status: 200, body: {} });
    expect(await post({ big: true, note: 'an urgent one' })).toEqual({
      status: 200,
      body: { size: 'big', mark: 'marked' },
    });
    expect(await post({ big: 0, note: 'later' })).toEqual({ status: 200, body: {} });
    expect((await post({ code: 'EUR' })).status).toBe(200);
    expect(await post({ code: 'eu' })).toMatchObject({
      status: 400,
      body: { errors: [{ field: '/code', message: 'must be three capitals' }] },
    });
  });

  it('inside a nested step list too (a split body)', async () => {
    const nested = `id: nested
from:
  http:
    path: /nested
steps:
  - split:
      items: body.items
      steps:
        - if: "body > 1"
          set: { values: { body: "'big'" } }
`;
    const root = tmpProject({ 'routes/n/nested.yaml': nested });
    expect(await lint({ 'routes/n/nested.yaml': nested })).toEqual([]);
    const e = await startProject(root);
    try {
      expect((await postJson(e, '/nested', { items: [1, 2, 0, 5] })).body).toEqual([1, 'big', 0, 'big']);
    } finally {
      await e.close();
    }
  });

  it("a guarded validate does not describe the route's input (it may not run)", () => {
    expect(engine.routes.find((r) => r.id === 'guarded')!.meta.inputSchema).toBeUndefined();
  });

  it('lint: a condition that is not a string or not JSONata, and an if without a step, each at its place', async () => {
    const out = await lint({
      ...FILES,
      'routes/demo/guarded.yaml': ROUTE.replace('- if: "body.big"', '- if: 3')
        .replace('if: "$exists(body.code)"', 'if: "$exists(body.code"')
        .replace('  - set:\n      values:\n        body:', '  - if: "true"\n  - set:\n      values:\n        body:'),
    });
    expect(out).toEqual([
      "routes/demo/guarded.yaml:6:9 'if' is a JSONata condition (a string): the step runs only when it is truthy (at steps[0].if)",
      expect.stringMatching(/^routes\/demo\/guarded.yaml:16:9 JSONata: .* \(at steps\[1\]\.if\)$/),
      "routes/demo/guarded.yaml:21:5 'if' guards the step beside it: write it next to the step's kind (- if: <condition>, then <kind>: ...) (at steps[3].if)",
    ]);
  });

  it('lint: a misspelt if beside a step is named, with a suggestion', async () => {
    const out = await lint({
      ...FILES,
      'routes/demo/guarded.yaml': ROUTE.replace('- if: "body.big"', '- iff: "body.big"').replace(
        '    if: "$exists(body.code)"',
        '    when: "$exists(body.code)"',
      ),
    });
    expect(out).toEqual([
      "routes/demo/guarded.yaml:6:5 unknown key 'iff' beside the set step; did you mean 'if'? (at steps[0].iff)",
      "routes/demo/guarded.yaml:16:5 unknown key 'when' beside the validate step: a step has its kind and optionally `if` (a JSONata condition) (at steps[1].when)",
    ]);
  });

  it('the editor schema accepts it beside a step, not beside a source', () => {
    const validate = new Ajv2020({ strict: false }).compile(routeJsonSchema());
    expect(validate(parse(ROUTE))).toBe(true);
    expect(validate(parse(ROUTE.replace('  http:\n', '  if: "true"\n  http:\n')))).toBe(false);
  });

  it('the console draws it as a choice with that one branch', () => {
    const graph = routeGraph(`${tmpProject(FILES)}/routes/demo/guarded.yaml`)!;
    // each opens at its line of the route file (the step with `if:` is one item: line 6)
    const at = { file: expect.stringMatching(/routes\/demo\/guarded\.yaml$/), line: 6 };
    expect(graph.steps[0]).toEqual({
      kind: 'choice',
      path: 'steps[0]',
      label: 'if',
      source: at,
      branches: [{ label: 'body.big', steps: [{ kind: 'set', path: 'steps[0]', label: 'set', source: at }] }],
    });
    expect(graph.steps[2]).toMatchObject({
      kind: 'choice',
      branches: [
        {
          label: '$contains(body.note, /urgent/)',
          steps: [{ kind: 'to-direct', target: { kind: 'route', name: 'mark' } }],
        },
      ],
    });
  });
});
