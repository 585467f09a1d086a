// Lint of `check-output` (issue 24, finding 4): the route key that turns the output check off is
// known to lint and to the editor schema, a misspelling gets a did-you-mean, a value that is not a
// boolean is an error, and the key without an output-schema is a warning (it would change nothing).

import { describe, it, expect } from 'vitest';
import { lintFiles } from '../helpers/lint-files.ts';
import { routeJsonSchema } from '../../engine/dsl/route-schema.ts';

const SCHEMA = JSON.stringify({ type: 'object', required: ['ok'], properties: { ok: { type: 'boolean' } } });
const route = (extra: string, output = 'output-schema: schemas/answer.schema.json\n') => `id: demo
${output}${extra}from:
  http:
    path: /demo
steps:
  - set: { values: { body: "{ 'ok': true }" } }
`;
const lint = (text: string) => lintFiles({ 'routes/demo.yaml': text, 'schemas/answer.schema.json': SCHEMA });

describe('check-output in lint', () => {
  it('check-output: false beside output-schema is clean', async () => {
    expect(await lint(route('check-output: false\n'))).toEqual([]);
  });

  it('a misspelt key is said at its line with a did-you-mean', async () => {
    expect(await lint(route('check-ouput: false\n'))).toEqual([
      expect.stringMatching(
        /^routes\/demo\.yaml:3:1 unknown key 'check-ouput' in route; did you mean 'check-output'\?/,
      ),
    ]);
  });

  it('a value that is not a boolean is an error naming the key', async () => {
    expect(await lint(route('check-output: no-thanks\n'))).toEqual([
      expect.stringMatching(/^routes\/demo\.yaml:3:\d+ 'check-output' must be true or false/),
    ]);
  });

  it('check-output without an output-schema is a warning: it changes nothing', async () => {
    expect(await lint(route('check-output: false\n', ''))).toEqual([
      expect.stringMatching(/^routes\/demo\.yaml:2:1 warning: 'check-output' has no effect without 'output-schema'/),
    ]);
  });

  it('the editor schema (schemas/route.schema.json) knows the key, a boolean defaulting to true', () => {
    expect((routeJsonSchema().properties as Record<string, unknown>)['check-output']).toMatchObject({
      type: 'boolean',
      default: true,
    });
  });
});
