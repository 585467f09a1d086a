// Two HTTP routes the router cannot tell apart, or a route on a path of the engine or an
// extension, are a lint error naming both places (engine/http/route-paths.ts); `engine run` and
// reloads refuse on it: test/reload/duplicate-paths.test.ts, test/reload/cli-dev.test.ts.

import { describe, expect, it } from 'vitest';
import { lintProject } from '../../engine/engine.ts';
import { formatDiagnostic } from '../../engine/core/diagnostics.ts';
import { createLogger } from '../../engine/observability/logger.ts';
import { loadExtensions } from '../../engine/cli/extensions.ts';
import { GATEWAY_PATHS } from '../../engine/gateway/index.ts';
import { CONSOLE_PATHS } from '../../engine/console/index.ts';
import { ENGINE_PATHS } from '../../engine/http/route-paths.ts';
import { operations } from '../../engine/http/operations.ts';
import { tmpProject } from '../helpers/tmp-project.ts';

/** A route answering its id; its path is at line 5, column 11. */
const pathRoute = (id: string, method: string, path: string): string => `id: ${id}
from:
  http:
    method: ${method}
    path: ${path}
steps:
  - transform:
      expression: '{"route": "${id}"}'
`;

async function lint(routes: Record<string, string>): Promise<string[]> {
  const root = tmpProject(Object.fromEntries(Object.entries(routes).map(([f, t]) => [`routes/${f}`, t])));
  // the CLI's extensions: the gateway and the console say their paths without loading
  const extensions = await loadExtensions([], ['node', 'engine', 'lint']);
  const diags = await lintProject({
    routes: ['routes'],
    root,
    logger: createLogger('silent'),
    processEnv: {},
    extensions,
  });
  // file names are relative to the working directory: the project's part of them
  return diags.map((d) => formatDiagnostic(d).replace(/[^\s(]*engine-test-[^/]+\//g, ''));
}

describe('duplicate paths', () => {
  it('two routes on one method and path: the second names the first', async () => {
    expect(
      await lint({ 'a.yaml': pathRoute('first', 'POST', '/things'), 'b.yaml': pathRoute('second', 'POST', '/things') }),
    ).toEqual([
      "routes/b.yaml:5:11 POST /things is already served by route 'first' (routes/a.yaml:5:11); two routes cannot share a method and path (at from.http.path)",
    ]);
  });

  it.each([
    ['parameters of other names', '/things/{id}', '/things/{name}'],
    ['a trailing slash', '/things', '/things/'],
  ])('paths that differ only in %s are one path', async (_what, first, second) => {
    expect(
      await lint({ 'a.yaml': pathRoute('first', 'GET', first), 'b.yaml': pathRoute('second', 'GET', second) }),
    ).toEqual([
      `routes/b.yaml:5:11 GET ${second} is already served by route 'first' as GET ${first} (routes/a.yaml:5:11); to the router they are one path (parameter names and a trailing slash do not count) (at from.http.path)`,
    ]);
  });

  it('other methods, or a static segment beside a parameter, are other routes', async () => {
    expect(
      await lint({
        'a.yaml': pathRoute('first', 'GET', '/things/{id}'),
        'b.yaml': pathRoute('second', 'POST', '/things/{name}'),
        'c.yaml': pathRoute('third', 'GET', '/things/latest'),
      }),
    ).toEqual([]);
  });

  it.each([
    ['GET', '/metrics', 'is /metrics, a path of the engine'],
    ['GET', '/health/deep', 'is under /health, a path of the engine'],
    ['POST', '/openapi.json', 'is /openapi.json, a path of the engine'],
    ['POST', '/mcp', 'is /mcp, a path of the gateway extension'],
    [
      'GET',
      '/.well-known/oauth-protected-resource/x',
      'is under /.well-known/oauth-protected-resource, a path of the gateway extension',
    ],
    ['GET', '/console/', 'is /console, a path of the console extension'],
  ])('%s %s is a path of the engine or an extension', async (method, path, words) => {
    expect(await lint({ 'a.yaml': pathRoute('mine', method, path) })).toEqual([
      `routes/a.yaml:5:11 ${method} ${path} ${words}: routes may not serve it or a path under it (at from.http.path)`,
    ]);
  });

  it('the reserved paths are those served: operations endpoints, the gateway, the console', async () => {
    const ops = Object.keys(operations({} as never));
    expect(ops.every((p) => ENGINE_PATHS.some((r) => p === r || p.startsWith(r + '/')))).toBe(true);
    const [gateway, consoleExtension] = await loadExtensions([], ['node', 'engine', 'lint']);
    expect(gateway.paths).toEqual(GATEWAY_PATHS);
    expect(consoleExtension.paths).toEqual(CONSOLE_PATHS);
  });
});
