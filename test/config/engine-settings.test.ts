// The `engine:` section of an environment file: unknown keys and wrong types are diagnostics
// with file:line:col (lint and `engine run` refuse them), and omitted settings take defaults.

import { describe, it, expect } from 'vitest';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join, resolve } from 'node:path';
import { loadValues } from '../../engine/config/values.ts';
import { ENGINE_DEFAULTS } from '../../engine/config/engine-settings.ts';
import { DiagnosticError } from '../../engine/core/diagnostics.ts';
import { tmpProject } from '../helpers/tmp-project.ts';

const run = promisify(execFile);

function project(envFile: string): string {
  return tmpProject({
    'values/demo-v1.values.yaml': 'hub:\n  timeout: 5000\n',
    'values/environments/dev.yaml': envFile,
    'routes/r.yaml':
      'id: r\nvalues: demo-v1\nfrom:\n  http: { method: GET, path: /r }\nsteps:\n  - set: { vars.t: "{{hub.timeout}}" }\n',
  });
}

function diagnostics(envFile: string): DiagnosticError {
  const root = project(envFile);
  try {
    loadValues({ dir: join(root, 'values'), env: 'dev', processEnv: {} });
  } catch (e) {
    expect(e).toBeInstanceOf(DiagnosticError);
    return e as DiagnosticError;
  }
  throw new Error('the environment file was accepted');
}

describe('engine settings', () => {
  it('an unknown key is named at file:line:col with a suggestion', () => {
    const err = diagnostics('keys: {}\nengine:\n  server:\n    prot: 8080\n');
    expect(err.diagnostics).toHaveLength(1);
    expect(err.diagnostics[0]).toMatchObject({ line: 4, col: 5 });
    expect(err.diagnostics[0].file).toMatch(/values\/environments\/dev\.yaml$/);
    expect(err.diagnostics[0].message).toBe("unknown key 'prot' in engine settings; did you mean 'port'?");
  });

  it('a wrong type is named at its line', () => {
    const err = diagnostics('engine:\n  server:\n    port: eighty\n  expressions:\n    timeout: 0\n');
    expect(err.diagnostics.map((d) => [d.line, d.col, d.message])).toEqual([
      [3, 11, "'port' must be a whole number"],
      [5, 14, "'timeout' must be >= 1"],
    ]);
  });

  it('a console host that is not a host name (a URL, a path) is named at its line', () => {
    const err = diagnostics(
      "engine:\n  console:\n    allowedHosts:\n      - console.bank.internal:8443\n      - 'http://console.bank.internal/'\n",
    );
    expect(err.diagnostics.map((d) => [d.line, d.message])).toEqual([
      [
        5,
        "engine.console.allowedHosts[1]: 'http://console.bank.internal/' is not a host name: a name or address, optionally with :port (console.bank.internal, 10.0.0.5:8080), without scheme or path",
      ],
    ]);
  });

  it("engine.expressions.maxRange is at most JSONata's own bound on a range (10,000,000)", () => {
    const err = diagnostics('engine:\n  expressions:\n    maxRange: 20000000\n');
    expect(err.diagnostics.map((d) => [d.line, d.message])).toEqual([[3, "'maxRange' must be <= 10000000"]]);
  });

  it('settings left out take their defaults', () => {
    const root = project('engine:\n  server:\n    port: 9090\n    trustProxy: [10.0.0.0/8]\n');
    const env = loadValues({ dir: join(root, 'values'), env: 'dev', processEnv: {} }).environment.engine;
    expect(env).toEqual({
      server: { ...ENGINE_DEFAULTS.server, port: 9090, trustProxy: ['10.0.0.0/8'] },
      expressions: ENGINE_DEFAULTS.expressions,
      console: { exchanges: 200, bodyLimit: 4000, recordPerSecond: 100, allowedHosts: [] },
    });
    expect(env.server).toMatchObject({
      host: '127.0.0.1',
      bodyLimit: 1024 * 1024,
      jsonDepthLimit: 64,
      shutdownTimeout: 10_000,
    });
    expect(env.expressions).toEqual({ timeout: 1000, maxDepth: 500, maxRange: 100_000 });
    // no environment at all: every default
    expect(loadValues({ dir: join(root, 'values'), processEnv: {} }).environment.engine).toEqual(ENGINE_DEFAULTS);
  });

  it('a header deadline longer than the request deadline is named at its line; left out, it follows a shorter one', () => {
    const err = diagnostics('engine:\n  server:\n    requestTimeout: 5000\n    headersTimeout: 20000\n');
    expect(err.diagnostics.map((d) => [d.line, d.col, d.message])).toEqual([
      [4, 21, 'engine.server.headersTimeout (20000 ms) must not be longer than engine.server.requestTimeout (5000 ms)'],
    ]);
    const root = project('engine:\n  server:\n    requestTimeout: 5000\n');
    expect(
      loadValues({ dir: join(root, 'values'), env: 'dev', processEnv: {} }).environment.engine.server,
    ).toMatchObject({ requestTimeout: 5000, headersTimeout: 5000 });
  });

  it('`engine run` refuses to start on it and prints the diagnostic', async () => {
    const root = project('engine:\n  server:\n    prot: 8080\n');
    const args = [resolve('bin/engine.js'), 'run', 'routes', '--env', 'dev', '--port', '0'];
    const err = await run(process.execPath, args, { cwd: root, timeout: 30_000 }).then(
      () => undefined,
      (e) => e,
    );
    expect(err, 'engine run started').toBeDefined();
    expect(err.code).toBe(1);
    expect(err.stderr).toMatch(
      /values\/environments\/dev\.yaml:3:5 unknown key 'prot' in engine settings; did you mean 'port'\?/,
    );
    expect(err.stderr).toContain('not starting');
  }, 60_000);
});
