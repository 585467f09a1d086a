// Where a file a step names is (a validate schema, a transform or rule .jsonata file, an
// output-schema, an on-exception template): beside the file naming it first, so a connector keeps
// its own schemas and mappings in its route folder (`schemas/rate.schema.json` there), then from
// the project root, where schemas/ and transforms/<vendor>/ hold what connectors share.

import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, extname, isAbsolute, join, resolve } from 'node:path';
import { didYouMean } from './diagnostics.ts';

/** The absolute path `name` (as written in `from`, a route or connector document) stands for. */
export function stepFile(name: string, from: string | undefined, root: string): string {
  if (from && !isAbsolute(name)) {
    const beside = resolve(dirname(from), name);
    if (existsSync(beside)) return beside;
  }
  return resolve(root, name);
}

/**
 * "; did you mean 'x'?" when a file of a close name is where `name` was looked for (beside `from`,
 * then under `root`): a typo of a schema, mapping or template name.
 */
export function fileSuggestion(name: string, from: string | undefined, root: string): string {
  const dirs = [...(from && !isAbsolute(name) ? [resolve(dirname(from), name)] : []), resolve(root, name)].map(dirname);
  for (const dir of new Set(dirs)) {
    let entries: string[];
    try {
      entries = readdirSync(dir);
    } catch {
      continue;
    }
    // names of the same extension, compared without it (`nope.jsonata` is not close to `map.jsonata`)
    const ext = extname(name);
    const stems = entries.filter((e) => extname(e) === ext).map((e) => e.slice(0, e.length - ext.length));
    const s = didYouMean(basename(name, ext), stems);
    if (s) return `; did you mean '${join(dirname(name), s + ext)}'?`;
  }
  return '';
}
