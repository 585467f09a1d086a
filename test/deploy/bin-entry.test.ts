// bin/engine.js picks what to run: the build in dist/ when it is at least as new as the TypeScript
// sources, else the sources through tsx (so an edit is never shadowed by a stale build), and a
// clear message when neither can run. Works on a copy of the project: a build here never touches
// the shared working tree.

import { readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWithoutTypecheck, projectCopy, run, runOk } from './support.ts';

const DESCRIPTION = 'Declarative YAML route engine for bank integrations';

/** Replaces the program description in `file`, so `--help` shows which code ran. */
function mark(file: string, text: string): void {
  const src = readFileSync(file, 'utf8');
  expect(src).toContain(DESCRIPTION);
  writeFileSync(file, src.replace(DESCRIPTION, text));
}

describe('bin/engine.js', () => {
  let dir: string;
  const help = async () => (await runOk('node', ['bin/engine.js', '--help'], { cwd: dir, timeoutMs: 60_000 })).stdout;

  beforeAll(async () => {
    dir = projectCopy();
    await buildWithoutTypecheck(dir);
  }, 200_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('runs the build when it is newer than the sources', async () => {
    mark(join(dir, 'dist/engine.cjs'), 'FROM-DIST');
    expect(await help()).toContain('FROM-DIST');
  }, 60_000);

  it('runs the sources through tsx when one of them changed after the build', async () => {
    mark(join(dir, 'engine/cli/main.ts'), 'FROM-SOURCES');
    // a later modification time, whatever the file system's clock resolution
    const later = new Date(Date.now() + 5_000);
    utimesSync(join(dir, 'engine/cli/main.ts'), later, later);
    expect(await help()).toContain('FROM-SOURCES');
  }, 60_000);

  it('without a build and without tsx, says what to do', async () => {
    rmSync(join(dir, 'dist'), { recursive: true });
    rmSync(join(dir, 'node_modules'));
    const r = await run('node', ['bin/engine.js', '--version'], { cwd: dir, timeoutMs: 30_000 });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no build in dist/ and no tsx');
  });
});
