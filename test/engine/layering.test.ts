// The engine library knows nothing of the sandbox: the simulators are an extension that the
// program (bin/engine.js) passes to the CLI. No file under engine/ may name sandbox/.
import { it, expect } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve('.');
const SPECIFIER = /\b(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name);
    return d.isDirectory() ? sources(p) : /\.(ts|js|mjs)$/.test(d.name) ? [p] : [];
  });
}

it('no file under engine/ imports anything under sandbox/', () => {
  const offending: string[] = [];
  const files = sources(join(ROOT, 'engine'));
  expect(files.length).toBeGreaterThan(20);
  for (const file of files) {
    const rel = relative(ROOT, file);
    for (const m of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
      if (!m[1].startsWith('.')) continue;
      const target = relative(ROOT, resolve(dirname(file), m[1]));
      if (target.startsWith('sandbox/')) offending.push(`${rel} imports ${m[1]}`);
    }
  }
  expect(offending).toEqual([]);
});

it('the program registers the sandbox as an extension', () => {
  expect(readFileSync('bin/engine.js', 'utf8')).toContain("import('../sandbox/extension.ts')");
});
