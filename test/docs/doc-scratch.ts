// The scratch directory the documents run in: links to the project's files, so the examples read
// the project, beside files of its own that the test writes. A project's `engine.log` (the README
// has users run `npm start | tee engine.log`) is not linked: the test's engine log would
// overwrite it through the link.

import { mkdtempSync, readdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Names the test writes in the scratch directory itself (plus `.git`, which it never needs). */
const OWN = (name: string) => name === '.git' || name === 'engine.log' || name.startsWith('.doc-test');

export function scratchCopy(root: string): string {
  const work = mkdtempSync(join(tmpdir(), 'doc-test-'));
  for (const e of readdirSync(root)) if (!OWN(e)) symlinkSync(join(root, e), join(work, e));
  return work;
}
