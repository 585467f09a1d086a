// Adding a step kind is one file and one registry line: a kind written in a module of its own
// (here a temporary one, outside the engine) and registered is linted, compiled and run, drawn by
// the console and documented in the generated reference, with no other file knowing its name.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { registerStepKind, STEP_KINDS } from '../../engine/steps/registry.ts';
import type { StepKind } from '../../engine/steps/step-kind.ts';
import { routeGraph } from '../../engine/console/route-graph.ts';
import { renderReference } from '../../engine/dsl/reference.ts';
import { routeJsonSchema } from '../../engine/dsl/route-schema.ts';
import type { RunningEngine } from '../../engine/engine.ts';
import { lintFiles } from '../helpers/lint-files.ts';
import { startProject, postJson } from '../helpers/project-engine.ts';
import { tmpProject } from '../helpers/tmp-project.ts';

const STEP_KIND_TS = pathToFileURL(resolve('engine/steps/step-kind.ts')).href;

/** The whole of a new step kind: schema, compile, how it is drawn and its example. */
const MODULE = `
import { defineStep } from '${STEP_KIND_TS}';

export default defineStep({
  kind: 'stamp',
  description: 'Answers with a fixed text (a step kind defined outside the engine).',
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['text'],
    properties: { text: { type: 'string', description: 'the text answered' } },
  },
  compile(cfg) {
    return (ex) => { ex.body = { stamp: cfg.text }; };
  },
  graph: (c, g) => ({ label: 'stamp ' + (g.text(c.text) ?? '') }),
  example: 'id: example-stamp\\nfrom:\\n  http:\\n    path: /examples/stamp\\nsteps:\\n  - stamp: { text: checked }',
});
`;

const route = (config: string) => `id: stamped
from:
  http:
    path: /stamped
steps:
  - stamp: ${config}
`;

let unregister: () => void;
let kind: StepKind;
beforeAll(async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'step-kind-')), 'stamp.ts');
  writeFileSync(file, MODULE);
  kind = (await import(pathToFileURL(file).href)).default as StepKind;
  unregister = registerStepKind(kind);
});
afterAll(() => unregister?.());

describe('a step kind from a module of its own', () => {
  it('is linted: a clean use passes, an unknown key of its config is a diagnostic', async () => {
    expect(await lintFiles({ 'routes/stamped.yaml': route('{ text: ok }') })).toEqual([]);
    const diags = await lintFiles({ 'routes/stamped.yaml': route('{ text: ok, colour: red }') });
    expect(diags).toHaveLength(1);
    expect(diags[0]).toContain("unknown key 'colour' in stamp step");
  });

  it('compiles and runs', async () => {
    let engine: RunningEngine | undefined;
    try {
      engine = await startProject({ 'routes/stamped.yaml': route('{ text: ok }') });
      expect(await postJson(engine, '/stamped')).toEqual({ status: 200, body: { stamp: 'ok' } });
    } finally {
      await engine?.close();
    }
  });

  it('is drawn by the console, nested steps included', () => {
    const nested = `  - choice:
      when:
        - condition: "true"
          steps:
            - stamp: { text: inner }
`;
    const root = tmpProject({ 'routes/stamped.yaml': route('{ text: "{{greeting}}" }') + nested });
    const graph = routeGraph(join(root, 'routes/stamped.yaml'), (k) => (k === 'greeting' ? 'hello' : undefined))!;
    const file = expect.stringMatching(/routes\/stamped\.yaml$/);
    expect(graph.steps[0]).toEqual({
      kind: 'stamp',
      path: 'steps[0]',
      label: 'stamp hello',
      source: { file, line: expect.any(Number) },
    });
    expect(graph.steps[1].branches![0].steps).toEqual([
      {
        kind: 'stamp',
        path: 'steps[1].choice.when[0].steps[0]',
        label: 'stamp inner',
        source: { file, line: expect.any(Number) },
      },
    ]);
  });

  it('is documented: the reference has its section, key table and example; the editor schema knows it', () => {
    const doc = renderReference();
    expect(doc).toContain('#### `stamp`\n\nAnswers with a fixed text (a step kind defined outside the engine).');
    expect(doc).toContain('| `text` (required) | string |  | the text answered |');
    expect(doc).toContain(`\`\`\`yaml\n${kind.example}\n\`\`\``);
    expect(kind.example).toContain('- stamp: { text: checked }');
    expect(JSON.stringify(routeJsonSchema())).toContain('"stamp"');
  });

  it('is gone again once removed', () => {
    unregister();
    expect(STEP_KINDS.has('stamp')).toBe(false);
    expect(renderReference()).not.toContain('#### `stamp`');
    unregister = registerStepKind(kind);
  });
});
