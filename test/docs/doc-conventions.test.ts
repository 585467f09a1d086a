// The conventions docs.test.ts reads in the documents: a harness that silently found no answer
// to check would pass on any document, so its parsing and matching are pinned here.

import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tmpProject } from '../helpers/tmp-project.ts';
import { parseDoc } from './doc-blocks.ts';
import { jsonMismatch, lastJson, linesMismatch } from './doc-match.ts';
import { scratchCopy } from './doc-scratch.ts';

const md = [
  '```sh',
  'curl -s localhost:8080/x',
  '# -> 404 {"code":"GC054",',
  '#      "detail":"not found",...}',
  'curl -s localhost:8080/y',
  '#    -> "bankStatus":"CANCELLED"',
  'node run.js',
  '# -> exit 1',
  '```',
  '',
  '```text',
  'engine: ... problem(s)',
  '```',
  '',
  '```bash',
  '# doc-test: skip (starts a server)',
  'npm start',
  '```',
  '',
  '```sh',
  'curl -s localhost:8080/z',
  '```',
  '',
  '`201 Created`:',
  '',
  '```json',
  '{"id":"PO...","createdAt":"...","payload":{...}}',
  '```',
  '',
  '```console',
  '$ node bin/engine.js lint routes/',
  'no problems',
  '```',
].join('\n');

describe('doc-test conventions', () => {
  const blocks = parseDoc('x.md', md);

  it('reads `# -> status json`, continued JSON, fragments, exit codes and a following text block', () => {
    const steps = blocks[0].steps;
    expect(steps.map((s) => s.expect)).toEqual([
      { line: 3, status: 404, json: { code: 'GC054', detail: 'not found' } },
      { line: 6, json: { bankStatus: 'CANCELLED' } },
      { line: 8, exit: 1, lines: ['engine: ... problem(s)'] },
    ]);
    expect(steps[0].script).toBe('curl -s localhost:8080/x');
  });

  it('skips only a block marked `# doc-test: skip`, with its reason', () => {
    expect(blocks[1]).toMatchObject({ skip: 'starts a server', steps: [] });
    expect(blocks.filter((b) => b.skip)).toHaveLength(1);
  });

  it('takes a json block right after a run block as its answer, with the status of the prose line', () => {
    expect(blocks[2].steps[0].expect).toEqual({
      line: 26,
      status: 201,
      json: { id: 'PO...', createdAt: '...', payload: '...' },
    });
  });

  it('reads console transcripts as commands and their output', () => {
    expect(blocks[3].steps).toEqual([
      { script: 'node bin/engine.js lint routes/', expect: { line: 31, lines: ['no problems'] } },
    ]);
  });

  it('matches subsets, wildcards, prefixes and ordered array items', () => {
    const actual = { id: 'PO20261123000001', createdAt: 'x', n: 1, list: [{ a: 1 }, { a: 2 }, { a: 3 }], none: [] };
    expect(
      jsonMismatch({ id: 'PO...', createdAt: '...', list: [{ a: 1 }, { a: 3 }], none: [] }, actual),
    ).toBeUndefined();
    expect(jsonMismatch({ id: 'ACC...' }, actual)).toMatch(/\/id: expected a string starting "ACC"/);
    expect(jsonMismatch({ n: 2 }, actual)).toMatch(/\/n: expected 2, got 1/);
    expect(jsonMismatch({ missing: '...' }, actual)).toMatch(/\/missing: missing/);
    expect(jsonMismatch({ list: [{ a: 3 }, { a: 1 }] }, actual)).toMatch(/no item matches/);
    expect(jsonMismatch({ list: [] }, actual)).toMatch(/expected \[\]/);
  });

  it('finds the last JSON printed and matches output lines in order', () => {
    expect(lastJson('HTTP/1.1 200 OK\ncontent-type: x\n\n{"a":1}\n{"b":2}\nnot json')).toEqual({ b: 2 });
    expect(lastJson('{\n  "pretty": true\n}\n')).toEqual({ pretty: true });
    expect(linesMismatch(['a.yaml:... bad', 'done'], 'a.yaml:3:4 bad\nother\ndone\n')).toBeUndefined();
    expect(linesMismatch(['done', 'a.yaml:... bad'], 'a.yaml:3:4 bad\ndone\n')).toMatch(/no output line/);
  });

  it("runs in links to the project but writes its own engine.log, leaving the user's (npm start | tee engine.log) alone", () => {
    const root = tmpProject({ 'README.md': '# x\n', 'engine.log': 'the user engine\n' });
    const work = scratchCopy(root);
    expect(readFileSync(join(work, 'README.md'), 'utf8')).toBe('# x\n');
    writeFileSync(join(work, 'engine.log'), 'the test engine\n');
    expect(readFileSync(join(root, 'engine.log'), 'utf8')).toBe('the user engine\n');
    for (const d of [work, root]) rmSync(d, { recursive: true, force: true });
  });

  it('finds answers to check in the project documents', () => {
    const files = [
      'README.md',
      'docs/routes.md',
      'docs/configuration.md',
      'docs/connectors/payments.md',
      'docs/connectors/screening.md',
      'docs/connectors/batch-payments.md',
      'docs/gateway.md',
    ];
    for (const f of files) {
      const doc = parseDoc(f, readFileSync(join(import.meta.dirname, '..', '..', f), 'utf8'));
      const checked = doc.flatMap((b) => b.steps).filter((s) => s.expect);
      expect(checked.length, f).toBeGreaterThanOrEqual(3);
    }
  });
});
