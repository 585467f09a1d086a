// A warning (something that changes nothing, such as a client profile no route uses) is printed
// and logged and stops nothing: `engine run` starts, a reload goes through, `engine lint` exits 0
// unless --strict. An error still stops all three.

import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startEngine, type RunningEngine } from '../../engine/engine.ts';
import { captureLogs } from '../hubvendor-payment-inbound/helpers.ts';
import { tmpProject } from '../helpers/tmp-project.ts';

const FILES = {
  'values/demo-v1.values.yaml': 'greeting: hello\n',
  'routes/o/connector.yaml': 'values: demo-v1\nclients:\n  spare:\n    base-url: http://127.0.0.1:9\n',
  'routes/o/hello.yaml':
    "id: hello\nfrom:\n  http: { method: GET, path: /hello }\nsteps:\n  - transform: { expression: \"{ 'say': '{{greeting}}' }\" }\n",
};

const engines: RunningEngine[] = [];
afterAll(async () => {
  for (const e of engines) await e.close();
});

/** `engine lint` of the project in a child process: its exit status and output. */
function lintCli(root: string, ...args: string[]): { status: number; out: string } {
  try {
    return {
      status: 0,
      out: execFileSync(process.execPath, [resolve('bin/engine.js'), 'lint', 'routes', ...args], {
        cwd: root,
        encoding: 'utf8',
      }),
    };
  } catch (e: any) {
    return { status: e.status, out: e.stdout };
  }
}

describe('lint warnings', () => {
  it('a start logs them and serves; a reload with a warning goes through, one with an error is refused', async () => {
    const root = tmpProject(FILES);
    const logs = captureLogs();
    const e = await startEngine({ routes: [join(root, 'routes')], root, port: 0, logger: logs.logger, processEnv: {} });
    engines.push(e);
    expect(await (await fetch(`${e.url}/hello`)).json()).toEqual({ say: 'hello' });
    const started = logs.lines.find((l) => /lint warning\(s\); starting/.test(l.msg));
    expect(started?.warnings).toEqual([
      expect.stringMatching(/connector\.yaml:3:3 warning: client 'spare' is not used by any route/),
    ]);

    writeFileSync(join(root, 'values/demo-v1.values.yaml'), 'greeting: bonjour\n');
    const ok = await e.reload('test');
    expect(ok.ok).toBe(true);
    expect(await (await fetch(`${e.url}/hello`)).json()).toEqual({ say: 'bonjour' });
    expect(logs.lines.find((l) => /routes reloaded/.test(l.msg))?.warnings).toHaveLength(1);

    writeFileSync(join(root, 'routes/o/hello.yaml'), FILES['routes/o/hello.yaml'].replace('transform:', 'transfrom:'));
    const refused = await e.reload('test');
    expect(refused.ok).toBe(false);
    expect(await (await fetch(`${e.url}/hello`)).json()).toEqual({ say: 'bonjour' });
  });

  it('engine lint prints them and exits 0; with --strict it exits 1; an error exits 1', () => {
    const root = tmpProject(FILES);
    const warned = lintCli(root);
    expect(warned.status).toBe(0);
    expect(warned.out).toMatch(/routes\/o\/connector\.yaml:3:3 warning: client 'spare' is not used by any route/);
    expect(warned.out).toContain('1 problem(s) (0 error(s), 1 warning(s))');
    expect(lintCli(root, '--strict').status).toBe(1);
    writeFileSync(join(root, 'routes/o/hello.yaml'), FILES['routes/o/hello.yaml'].replace('transform:', 'transfrom:'));
    const failed = lintCli(root);
    expect(failed.status).toBe(1);
    expect(failed.out).toContain('(1 error(s), 1 warning(s))');
  }, 60_000);
});
