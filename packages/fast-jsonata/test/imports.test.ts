// The package stands alone: its sources import jsonata and Node.js built-ins only, its tests and
// bench also vitest and fast-check, and no relative import leaves the package's folder (nothing of
// the engine, the way its tests and bench once did).

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { expect, it } from 'vitest';

const PACKAGE = resolve(import.meta.dirname, '..');
const SPECIFIER = /\b(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g;

const files = (dir: string) =>
  readdirSync(join(PACKAGE, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name));

it('imports nothing outside the package but jsonata, node: built-ins and (tests, bench) vitest and fast-check', () => {
  const offending: string[] = [];
  for (const [dir, allowed] of [
    ['src', ['jsonata']],
    ['test', ['jsonata', 'vitest', 'fast-check']],
    ['bench', ['jsonata']],
  ] as const) {
    const list = files(dir);
    expect(list.length, dir).toBeGreaterThan(0);
    for (const file of list) {
      for (const [, spec] of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
        const where = `${relative(PACKAGE, file)} imports ${spec}`;
        if (spec.startsWith('.')) {
          if (relative(PACKAGE, resolve(dirname(file), spec)).startsWith('..')) offending.push(where);
        } else if (!spec.startsWith('node:') && !(allowed as readonly string[]).includes(spec)) offending.push(where);
      }
    }
  }
  expect(offending).toEqual([]);
});
