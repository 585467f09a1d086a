// A route's version (what a failed exchange keeps as routeVersion): `sha256:` and a digest of what
// the route is built from, set once per load; an edit of its files changes it, a reload that leaves
// the route alone keeps it.

import { afterAll, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startProject } from '../helpers/project-engine.ts';
import type { RunningEngine } from '../../engine/engine.ts';
import { tmpProject } from '../helpers/tmp-project.ts';

let engine: RunningEngine | undefined;
afterAll(() => engine?.close());

const route = (id: string, transform: string) =>
  `id: ${id}\nfrom:\n  http:\n    path: /${id}\nsteps:\n  - transform: ${transform}\n`;

it('changes with the files of the route, and only with them', async () => {
  const root = tmpProject({
    'routes/a.yaml': route('a', 'a.jsonata'),
    'routes/a.jsonata': '{ "v": 1 }',
    'routes/b.yaml': route('b', 'b.jsonata'),
    'routes/b.jsonata': '{ "b": true }',
  });
  engine = await startProject(root);
  const version = (id: string) => engine!.routes.find((r) => r.id === id)!.version;
  const a1 = version('a');
  const b1 = version('b');
  expect(a1).toMatch(/^sha256:[0-9a-f]{64}$/);
  expect(b1).toMatch(/^sha256:[0-9a-f]{64}$/);
  expect(a1).not.toBe(b1);
  // a file the route names changes: its version changes, the other route's does not
  writeFileSync(join(root, 'routes/a.jsonata'), '{ "v": 2 }');
  const r = await engine.reload('test');
  expect(r).toMatchObject({ ok: true });
  expect(version('a')).toMatch(/^sha256:[0-9a-f]{64}$/);
  expect(version('a')).not.toBe(a1);
  expect(version('b')).toBe(b1);
});
