// What can be checked of the Dockerfile without a Docker engine or a network: every path it copies
// exists and survives .dockerignore, the runtime stage is the shape operators rely on (non-root,
// port 8080, health check on /health/ready, secrets as files, node as PID 1).

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { copyArgs, execForm, parseDockerfile } from './dockerfile.ts';
import { ROOT } from './support.ts';

const stages = parseDockerfile(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
const runtime = stages[stages.length - 1];
const ops = (op: string) => runtime.steps.filter((s) => s.op === op);

/** .dockerignore: last matching pattern wins, `!` re-includes, a match on a folder covers its files. */
function ignored(path: string): boolean {
  const rules = readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  let out = false;
  for (const rule of rules) {
    const negate = rule.startsWith('!');
    const glob = (negate ? rule.slice(1) : rule).replace(/\/$/, '');
    const re = new RegExp('^' + glob.split('**').map((p) => p.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]')).join('.*') + '(/.*)?$');
    if (re.test(path)) out = !negate;
  }
  return out;
}

describe('Dockerfile', () => {
  it('has a build stage and a runtime stage on a Node 20 image', () => {
    expect(stages.map((s) => s.name)).toEqual(['build', 'runtime']);
    for (const s of stages) expect(s.image).toMatch(/^node:20/);
  });

  it('copies only paths that exist in the context and that .dockerignore keeps', () => {
    const sources = stages.flatMap((s) => s.steps.filter((x) => x.op === 'COPY').map((x) => copyArgs(x.args))).filter((c) => !c.from).flatMap((c) => c.sources);
    expect(sources.length).toBeGreaterThan(5);
    for (const src of sources) {
      expect(existsSync(join(ROOT, src)), `${src} exists`).toBe(true);
      expect(ignored(src), `${src} is not excluded by .dockerignore`).toBe(false);
    }
    // what must never reach the build context
    for (const p of ['node_modules', 'dist', 'secrets', '.env', 'test', '.git']) expect(ignored(p), `${p} is excluded`).toBe(true);
  });

  it('the runtime stage holds the build, the production dependencies and the project files, no sources', () => {
    const copied = ops('COPY').map((c) => copyArgs(c.args));
    expect(copied.find((c) => c.from === 'build')?.sources).toEqual(['/app/dist']);
    const files = copied.filter((c) => !c.from).flatMap((c) => c.sources);
    for (const p of ['routes', 'values', 'transforms', 'schemas', 'bin', 'package.json', 'package-lock.json']) expect(files).toContain(p);
    expect(files).not.toContain('engine');
    expect(files).not.toContain('sandbox');
    expect(ops('RUN').map((r) => r.args).join('\n')).toMatch(/npm ci --omit=dev/);
  });

  it('runs as a non-root user, exposes 8080 and checks /health/ready with node', () => {
    const user = ops('USER').at(-1)?.args;
    expect(user).toBeDefined();
    expect(['root', '0']).not.toContain(user);
    expect(ops('EXPOSE').map((e) => e.args)).toEqual(['8080']);
    const hc = ops('HEALTHCHECK')[0].args;
    const cmd = execForm(hc.slice(hc.indexOf('CMD ') + 4));
    expect(cmd[0]).toBe('node');
    expect(cmd.join(' ')).toContain('/health/ready');
  });

  it('starts `run routes/ --env ... --secrets <mounted dir>` with node as PID 1', () => {
    expect(ops('ENTRYPOINT')).toEqual([]);
    const cmd = execForm(ops('CMD')[0].args);
    expect(cmd.slice(0, 2)).toEqual(['/bin/sh', '-c']);
    expect(cmd[2]).toMatch(/^exec node bin\/engine\.js run routes\/ --env "\$ENGINE_ENV" --secrets \/run\/secrets\/engine --host 0\.0\.0\.0 /);
  });
});
