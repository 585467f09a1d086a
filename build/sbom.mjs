// `npm run build`, last step: dist/sbom.cdx.json, the CycloneDX SBOM (`npm sbom`) of the production
// dependencies, which the package and the image ship. It is made from package-lock.json, which is
// what `npm ci --omit=dev` installs in the image, with the dev entries taken out first: `npm sbom
// --omit dev` on the whole lock also drops a production package that some dev package depends on
// too (npm/cli#7909; here ajv, yaml, jose and eight more).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(import.meta.url), '../..');

/**
 * A workspace package (package.json "workspaces", packages/*): its link and its folder in the lock.
 * It is the engine's own code, bundled into dist/, so the SBOM of the dependencies leaves it out;
 * the packages it depends on are in node_modules/ and listed like the root's.
 */
export const isWorkspace = (path, entry) =>
  !!entry.link || (!path.startsWith('node_modules/') && !path.includes('/node_modules/'));

/** The lock's production entries: every package but the root, the workspaces and those only dev dependencies reach. */
export function productionPackages(lock) {
  return Object.entries(lock.packages)
    .filter(([path, entry]) => path && !entry.dev && !isWorkspace(path, entry))
    .map(([path, entry]) => ({
      name: path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length),
      version: entry.version,
    }));
}

export function writeSbom({ from = root, to = join(root, 'dist', 'sbom.cdx.json') } = {}) {
  const pkg = JSON.parse(readFileSync(join(from, 'package.json'), 'utf8'));
  const lock = JSON.parse(readFileSync(join(from, 'package-lock.json'), 'utf8'));
  delete pkg.devDependencies;
  delete pkg.workspaces;
  delete lock.packages[''].devDependencies;
  delete lock.packages[''].workspaces;
  for (const [path, entry] of Object.entries(lock.packages))
    if (path && (entry.dev || isWorkspace(path, entry))) delete lock.packages[path];
  // npm names the SBOM's root component after the directory
  const base = mkdtempSync(join(tmpdir(), 'engine-sbom-'));
  const dir = join(base, pkg.name);
  try {
    mkdirSync(dir);
    writeFileSync(join(dir, 'package.json'), JSON.stringify(pkg, null, 2));
    writeFileSync(join(dir, 'package-lock.json'), JSON.stringify(lock, null, 2));
    // the npm running this build where there is one (`npm run build`), else the one on PATH
    const [cmd, pre] = process.env.npm_execpath?.endsWith('.js')
      ? [process.execPath, [process.env.npm_execpath]]
      : ['npm', []];
    const r = spawnSync(
      cmd,
      [
        ...pre,
        'sbom',
        '--sbom-format',
        'cyclonedx',
        '--sbom-type',
        'application',
        '--omit',
        'dev',
        '--package-lock-only',
      ],
      { cwd: dir, encoding: 'utf8', maxBuffer: 64 << 20 },
    );
    if (r.status !== 0) throw new Error(`npm sbom exited ${r.status ?? r.signal}:\n${r.stderr}`);
    const sbom = JSON.parse(r.stdout);
    const expected = productionPackages(lock).length;
    if (sbom.bomFormat !== 'CycloneDX' || sbom.components?.length !== expected) {
      throw new Error(
        `npm sbom listed ${sbom.components?.length} components (${sbom.bomFormat}), the lock has ${expected} production packages`,
      );
    }
    mkdirSync(join(to, '..'), { recursive: true });
    writeFileSync(to, JSON.stringify(sbom, null, 2) + '\n');
    return { file: to, components: expected };
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  // `node build/sbom.mjs [FILE]`: another file than dist/sbom.cdx.json (the tests)
  const r = writeSbom(process.argv[2] ? { to: resolve(process.argv[2]) } : {});
  console.log(`engine: SBOM of ${r.components} production packages in ${r.file}`);
}
