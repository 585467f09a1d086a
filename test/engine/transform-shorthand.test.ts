// `transform: <file>` is short for `transform: { file: <file> }`: it runs the same, lint points at
// the string when the file is missing, the editor schema accepts it (and still refuses a number),
// and the console diagram names the file.

import { describe, it, expect, afterAll } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { startEngine, type RunningEngine } from '../../engine/engine.ts';
import { createLogger } from '../../engine/observability/logger.ts';
import { routeJsonSchema } from '../../engine/dsl/route-schema.ts';
import { routeGraph } from '../../engine/console/route-graph.ts';
import { tmpProject } from '../helpers/tmp-project.ts';
import { lintFiles } from '../helpers/lint-files.ts';

const ROUTE = (file: string) => `id: short
from:
  http:
    path: /short
steps:
  - transform:
      file: ${file}
      into: vars.long
  - transform: ${file}
  - set:
      values:
        body: "{ 'short': body, 'same': vars.long = body }"
`;

const FILES = {
  'transforms/demo/map.jsonata': '{ "pair": body.buy & "/" & body.sell }',
  'routes/demo/short.yaml': ROUTE('transforms/demo/map.jsonata'),
};

let engine: RunningEngine | undefined;
afterAll(async () => {
  await engine?.close();
});

const lint = lintFiles;

describe('transform: <file>', () => {
  it('maps as transform: { file: <file> } does', async () => {
    engine = await startEngine({
      routes: ['routes'],
      root: tmpProject(FILES),
      port: 0,
      logger: createLogger('silent'),
      processEnv: {},
    });
    const res = await fetch(`${engine.url}/short`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"buy":"EUR","sell":"USD"}',
    });
    expect(await res.json()).toEqual({ short: { pair: 'EUR/USD' }, same: true });
  });

  it('lint says a missing file at the string, and refuses a value that is neither a string nor a mapping', async () => {
    expect(await lint({ ...FILES, 'routes/demo/short.yaml': ROUTE('transforms/demo/nope.jsonata') })).toEqual([
      'routes/demo/short.yaml:7:13 file not found: transforms/demo/nope.jsonata (at steps[0].transform.file)',
      'routes/demo/short.yaml:9:16 file not found: transforms/demo/nope.jsonata (at steps[1].transform.file)',
    ]);
    const out = await lint({
      ...FILES,
      'routes/demo/short.yaml': ROUTE('transforms/demo/map.jsonata').replace(
        '  - transform: transforms/demo/map.jsonata',
        '  - transform: 3',
      ),
    });
    expect(out).toEqual([
      "routes/demo/short.yaml:9:16 'transform' must be a mapping, or a string: its file (transform: <file> is short for transform: { file: <file> }) (at steps[1].transform)",
    ]);
  });

  it('lint says in its own words a mapping without expression or file, or with both', async () => {
    const step = (s: string) =>
      lint({
        ...FILES,
        'routes/demo/short.yaml': ROUTE('transforms/demo/map.jsonata').replace(
          '  - transform: transforms/demo/map.jsonata',
          s,
        ),
      });
    expect(await step('  - transform: { into: vars.x }')).toEqual([
      "routes/demo/short.yaml:9:16 'transform' needs 'expression' or 'file' (at steps[1].transform)",
    ]);
    expect(await step('  - transform:')).toEqual([
      "routes/demo/short.yaml:9:15 'transform' needs 'expression' or 'file' (at steps[1].transform)",
    ]);
    expect(await step('  - transform: { expression: body, file: transforms/demo/map.jsonata }')).toEqual([
      "routes/demo/short.yaml:9:16 'transform' takes only one of 'expression', 'file' (at steps[1].transform)",
    ]);
  });

  it('lint: a string that is no .jsonata file may have been meant as the expression; a folder is not a file', async () => {
    expect(
      await lint({
        ...FILES,
        'routes/demo/short.yaml': ROUTE('transforms/demo/map.jsonata').replace(
          '  - transform: transforms/demo/map.jsonata',
          '  - transform: "{ \'a\': body.a }"',
        ),
      }),
    ).toEqual([
      "routes/demo/short.yaml:9:16 file not found: { 'a': body.a } (a transform's file is a .jsonata file; an inline expression goes in transform: { expression: ... }) (at steps[1].transform.file)",
    ]);
    // it was a stack trace (EISDIR) instead of a diagnostic
    expect(await lint({ ...FILES, 'routes/demo/short.yaml': ROUTE('transforms/demo/') })).toEqual([
      'routes/demo/short.yaml:7:13 transforms/demo/ is a folder, not a file (at steps[0].transform.file)',
      'routes/demo/short.yaml:9:16 transforms/demo/ is a folder, not a file (at steps[1].transform.file)',
    ]);
  });

  it('the editor schema accepts it and still refuses a number there', () => {
    const validate = new Ajv2020({ strict: false }).compile(routeJsonSchema());
    expect(validate(parse(ROUTE('transforms/demo/map.jsonata')))).toBe(true);
    expect(
      validate(
        parse(
          ROUTE('transforms/demo/map.jsonata').replace(
            '  - transform: transforms/demo/map.jsonata',
            '  - transform: 3',
          ),
        ),
      ),
    ).toBe(false);
  });

  it('the console diagram names the file', () => {
    const root = tmpProject(FILES);
    const graph = routeGraph(`${root}/routes/demo/short.yaml`)!;
    expect(graph.steps.map((s) => s.label)).toEqual(['transform map.jsonata', 'transform map.jsonata', 'set']);
  });
});
