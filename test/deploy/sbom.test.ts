// The SBOM the build writes (build/sbom.mjs, the last step of `npm run build`; the package and the
// image ship it as dist/sbom.cdx.json): CycloneDX JSON naming the engine and listing exactly the
// production packages of package-lock.json, each with its purl and hash, and no dev package.
// `npm sbom --omit dev` alone would leave out the production packages a dev package also uses.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runOk } from './support.ts';

interface Component {
  name: string;
  version: string;
  purl?: string;
  hashes?: { alg: string }[];
  scope?: string;
}
interface Sbom {
  bomFormat: string;
  specVersion: string;
  metadata: { component: { name: string; version: string; type: string } };
  components: Component[];
  dependencies: { ref: string }[];
}
interface LockEntry {
  version: string;
  dev?: boolean;
  link?: boolean;
}

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, LockEntry>;
};
const id = (path: string, e: LockEntry) =>
  `${path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length)}@${e.version}`;
// the workspace packages (packages/*: a link and its folder) are the engine's own code, bundled into dist/
const workspace = ([path, e]: [string, LockEntry]) => !!e.link || !path.includes('node_modules/');
const entries = Object.entries(lock.packages)
  .filter(([path]) => path)
  .filter((x) => !workspace(x));
const production = new Set(entries.filter(([, e]) => !e.dev).map(([p, e]) => id(p, e)));
const devOnly = new Set(
  entries
    .filter(([, e]) => e.dev)
    .map(([p, e]) => id(p, e))
    .filter((x) => !production.has(x)),
);

describe('the SBOM of the build', () => {
  let dir: string;
  let sbom: Sbom;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'engine-sbom-test-'));
    await runOk('node', ['build/sbom.mjs', join(dir, 'sbom.cdx.json')], { cwd: ROOT, timeoutMs: 60_000 });
    sbom = JSON.parse(readFileSync(join(dir, 'sbom.cdx.json'), 'utf8')) as Sbom;
  }, 90_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is CycloneDX JSON about the engine', () => {
    expect(sbom.bomFormat).toBe('CycloneDX');
    expect(sbom.specVersion).toMatch(/^1\.\d+$/);
    expect(sbom.metadata.component).toMatchObject({ name: pkg.name, version: pkg.version, type: 'application' });
  });

  it('lists every production package of package-lock.json and no dev package', () => {
    const listed = sbom.components.map((c) => `${c.name}@${c.version}`);
    expect(new Set(listed).size).toBe(listed.length);
    expect(new Set(listed)).toEqual(production);
    for (const dev of devOnly) expect(listed, dev).not.toContain(dev);
    for (const name of Object.keys(pkg.devDependencies))
      expect(
        sbom.components.map((c) => c.name),
        name,
      ).not.toContain(name);
    // the direct dependencies, among them those a dev package also uses (npm sbom --omit dev drops these)
    for (const name of Object.keys(pkg.dependencies))
      expect(
        sbom.components.map((c) => c.name),
        name,
      ).toContain(name);
    expect(production.size).toBeGreaterThan(40);
    // the engine's own workspace package is not a dependency: its code is in the bundle
    expect(Object.entries(lock.packages).filter(workspace).length).toBeGreaterThan(0);
    expect(sbom.components.map((c) => c.name)).not.toContain('@bank-integration-engine/fast-jsonata');
    expect(devOnly.size).toBeGreaterThan(100);
  });

  it('gives each package the purl and hash a scanner matches on, and the dependency graph', () => {
    for (const c of sbom.components) {
      expect(c.purl, c.name).toBe(`pkg:npm/${c.name.replace('@', '%40')}@${c.version}`);
      expect(
        c.hashes?.map((h) => h.alg),
        c.name,
      ).toContain('SHA-512');
    }
    expect(sbom.dependencies.map((d) => d.ref)).toContain(`${pkg.name}@${pkg.version}`);
  });
});
