// Writes a small project (routes, values, schemas) into a temporary directory for lint and
// values tests.

import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';

export function tmpProject(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'engine-test-'));
  for (const [name, text] of Object.entries(files)) {
    const p = join(root, name);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, text);
  }
  return root;
}
