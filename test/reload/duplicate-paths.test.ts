// Two routes on one method and path: `engine run` refuses to start with the diagnostic naming both
// files (not find-my-way's stack trace), and a reload that brings the clash is refused with it
// while the last good routes are served. `--dev`: test/reload/cli-dev.test.ts; lint:
// test/unit/duplicate-paths.test.ts.

import { afterEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { formatDiagnostic } from '../../engine/core/diagnostics.ts';
import type { RunningEngine } from '../../engine/engine.ts';
import { startProject } from '../helpers/project-engine.ts';
import { tmpProject } from '../helpers/tmp-project.ts';
import { reloadProject } from './project.ts';

const BIN = fileURLToPath(new URL('../../bin/engine.js', import.meta.url));

/** A route answering its id; its path is at line 5, column 11. */
const pathRoute = (id: string, path: string): string => `id: ${id}
from:
  http:
    method: POST
    path: ${path}
steps:
  - transform:
      expression: '{"route": "${id}"}'
`;

const CLASH =
  "routes/second.yaml:5:11 POST /things/{name} is already served by route 'first' as POST /things/{id} (routes/first.yaml:5:11); " +
  'to the router they are one path (parameter names and a trailing slash do not count) (at from.http.path)';

let engine: RunningEngine | undefined;
afterEach(async () => {
  await engine?.close();
  engine = undefined;
});

describe('duplicate paths at start and reload', () => {
  it('engine run refuses to start, naming both files, with no stack trace', () => {
    const root = tmpProject({
      'routes/first.yaml': pathRoute('first', '/things/{id}'),
      'routes/second.yaml': pathRoute('second', '/things/{name}'),
    });
    const r = spawnSync(process.execPath, [BIN, 'run', 'routes', '--port', '0'], {
      cwd: root,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`${CLASH}\nengine: 1 problem(s); not starting\n`);
    expect(r.stderr).not.toMatch(/find-my-way|\n\s+at /);
  }, 60_000);

  it('a reload that brings a clash is refused; the previous routes are served', async () => {
    const p = reloadProject('http://127.0.0.1:9', { 'routes/first.yaml': pathRoute('first', '/things/{id}') });
    engine = await startProject(p.root);
    p.write('routes/second.yaml', pathRoute('second', '/things/{name}'));
    const r = await engine.reload('test');
    expect(r.ok).toBe(false);
    // file names are relative to the working directory: the project's part of them
    const said = (r as { diagnostics: Parameters<typeof formatDiagnostic>[0][] }).diagnostics.map((d) =>
      formatDiagnostic(d).replace(/[^\s(]*engine-test-[^/]+\//g, ''),
    );
    expect(said).toEqual([CLASH]);
    const res = await fetch(`${engine.url}/things/1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(await res.json()).toEqual({ route: 'first' });
  });
});
