// The Routes page's lint: the project on disk as `engine lint` sees it, so an edit the running
// engine refused (or has not reloaded) shows with file:line:col next to the route it breaks.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunningEngine } from '../../engine/engine.ts';
import { tmpProject } from '../helpers/tmp-project.ts';
import { startConsoleProject } from '../helpers/project-engine.ts';

const ROUTE = `id: hello
from:
  http: { method: POST, path: /hello }
steps:
  - set:
      values:
        body: "{'hello': 'world'}"
`;

describe('console lint view', () => {
  let engine: RunningEngine;
  let root: string;
  beforeAll(async () => {
    root = tmpProject({
      'routes/demo/hello.yaml': ROUTE,
      'values/environments/dev.yaml': 'engine:\n  console:\n    enabled: true\n',
    });
    engine = await startConsoleProject(root);
  }, 60_000);
  afterAll(async () => {
    await engine?.close();
  });

  it('is on when the environment says so, and reports a broken edit of a served route with file:line:col', async () => {
    const lint = async () => (await (await fetch(`${engine.url}/console/api/lint`)).json()).diagnostics;
    expect(await lint()).toEqual([]);
    const file = join(root, 'routes/demo/hello.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace('  - set:', '  - sett:'));
    const [d] = await lint();
    expect(d).toMatchObject({ file: 'routes/demo/hello.yaml', line: 5, col: 5 });
    expect(d.message).toContain("did you mean 'set'");
    // the served route is still the one that loaded
    expect((await fetch(`${engine.url}/hello`, { method: 'POST' })).status).toBe(200);
  });
});
