// Where a file a step names is (a validate schema, a transform or rule .jsonata file, an
// output-schema, an on-exception template): beside the file naming it first, so a connector keeps
// its own schemas and mappings in its route folder (`schemas/rate.schema.json` there), then from
// the project root, where schemas/ and transforms/<vendor>/ hold what connectors share.

import { existsSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';

/** The absolute path `name` (as written in `from`, a route or connector document) stands for. */
export function stepFile(name: string, from: string | undefined, root: string): string {
  if (from && !isAbsolute(name)) {
    const beside = resolve(dirname(from), name);
    if (existsSync(beside)) return beside;
  }
  return resolve(root, name);
}
