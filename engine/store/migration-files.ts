// The SQL files of migrations/, by file name. From the sources they are read from the folder; the
// build (build/bundle.mjs) puts their text in place of this module, so the bundle carries them and
// dist/ stays one file.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));

export function migrationFiles(dir = MIGRATIONS_DIR): Record<string, string> {
  return Object.fromEntries(
    readdirSync(dir)
      .filter((f) => f.endsWith('.sql'))
      .map((f) => [f, readFileSync(join(dir, f), 'utf8')]),
  );
}
