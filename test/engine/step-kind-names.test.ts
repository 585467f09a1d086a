// A step kind says in its own file what the loader, the console and OpenAPI need of it (its
// StepKind's hooks), so no engine code outside engine/steps/ names a step kind: a quoted kind name
// (a comparison, a `case`, an index key) anywhere else is a switch on kinds that a new kind
// would have to be added to.

import { it, expect } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { STEP_KINDS } from '../../engine/steps/registry.ts';

const ROOT = resolve('.');

/** Quoted words that are a kind's name by accident: file name and word, with why. */
const UNRELATED = new Set([
  'builtins.ts:split', // JSONata's $split function
  'values.ts:set', // a value given with --set
  'env-keys.ts:set', // a key given with --set
]);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name);
    return d.isDirectory() ? sources(p) : /\.(ts|js|mjs)$/.test(d.name) ? [p] : [];
  });
}

/** The code without its comments (a `//` inside a string such as a URL keeps the line). */
const code = (text: string) =>
  text
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '')
    .replace(/\s\/\/ .*$/gm, '');

it('no engine code outside engine/steps/ names a step kind', () => {
  const steps = join(ROOT, 'engine', 'steps');
  const files = sources(join(ROOT, 'engine')).filter((f) => !f.startsWith(steps + '/'));
  expect(files.length).toBeGreaterThan(50);
  const kinds = [...STEP_KINDS.keys()];
  expect(kinds).toContain('to-http');
  const found: string[] = [];
  for (const file of files) {
    const text = code(readFileSync(file, 'utf8'));
    for (const k of kinds) {
      if (UNRELATED.has(`${basename(file)}:${k}`)) continue;
      if (new RegExp(`['"]${k}['"]`).test(text)) found.push(`${relative(ROOT, file)}: '${k}'`);
    }
  }
  expect(found).toEqual([]);
});
