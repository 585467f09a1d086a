// Every document a file of the repository refers to is in the repository: no file names a design
// note or a specification kept elsewhere (the design document at the root, the `spec/` folder),
// which a reader of this repository cannot open. The pattern is built from pieces so that this
// file does not match itself.
import { it, expect } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';

const DESIGN = ['DESIGN', 'md'].join('\\.');
const SPEC = ['spec', '[\\w.-]+\\.md'].join('/');
const OUTSIDE = new RegExp(`\\b(?:${DESIGN}|${SPEC})\\b`, 'g');

/** The tracked files (node_modules and .git are never tracked). */
function trackedFiles(): string[] {
  return execFileSync('git', ['ls-files', '-z'], { encoding: 'utf8', maxBuffer: 64 << 20 }).split('\0')
    .filter((f) => f && existsSync(f) && statSync(f).isFile());
}

it('no tracked file refers to a document outside the repository', () => {
  const files = trackedFiles();
  expect(files.length).toBeGreaterThan(100);
  const hits: string[] = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    if (text.includes('\0')) continue; // binary
    text.split('\n').forEach((line, i) => {
      for (const m of line.matchAll(OUTSIDE)) hits.push(`${file}:${i + 1}: ${m[0]}`);
    });
  }
  expect(hits, `files refer to documents outside the repository:\n${hits.join('\n')}`).toEqual([]);
});

it('the pattern finds both kinds of reference', () => {
  const find = (s: string) => [...s.matchAll(OUTSIDE)].map((m) => m[0]);
  expect(find(`see ${['DESIGN', 'md'].join('.')} §1`)).toEqual([['DESIGN', 'md'].join('.')]);
  expect(find(`shapes: ${['spec', 'vendor-shapes.md'].join('/')}`)).toEqual([['spec', 'vendor-shapes.md'].join('/')]);
  expect(find('path: /spec/template/spec/containers/0/args')).toEqual([]);
});
