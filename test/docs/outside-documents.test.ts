// Every document a file of the repository refers to is in the repository: no file names a design
// note or a specification kept elsewhere (the design document at the root, a file of the `spec/`
// folder, the shared folder beside the checkout), which a reader of this repository cannot open.
// Every file counts: the tracked ones and those not yet committed (but for what .gitignore skips).
// The pattern is built from pieces so that this file does not match itself.
import { it, expect } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';

const DESIGN = ['DESIGN', 'md'].join('\\.');
// a file of a `spec/` folder (a Kubernetes manifest's `/spec/template/...` path names no file)
const SPEC = `(?<![\\w-])${['spec', '[\\w.-]+\\.[a-z]+'].join('/')}`;
const SHARED = ['\\.\\.', 'shared'].join('/');
const OUTSIDE = new RegExp(`\\b${DESIGN}\\b|${SPEC}\\b|${SHARED}\\b`, 'g');

/** The tracked files and the new ones git would add (node_modules and .git are never among them). */
function repositoryFiles(): string[] {
  const args = ['ls-files', '-z', '--cached', '--others', '--exclude-standard'];
  return execFileSync('git', args, { encoding: 'utf8', maxBuffer: 64 << 20 })
    .split('\0')
    .filter((f) => f && existsSync(f) && statSync(f).isFile());
}

it('no file of the repository refers to a document outside the repository', () => {
  const files = repositoryFiles();
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

it('the pattern finds each kind of reference', () => {
  const find = (s: string) => [...s.matchAll(OUTSIDE)].map((m) => m[0]);
  expect(find(`see ${['DESIGN', 'md'].join('.')} §1`)).toEqual([['DESIGN', 'md'].join('.')]);
  expect(find(`shapes: ${['spec', 'vendor-shapes.md'].join('/')}`)).toEqual([['spec', 'vendor-shapes.md'].join('/')]);
  expect(find(`shapes: ${['spec', 'vendor-shapes.yaml'].join('/')}`)).toEqual([
    ['spec', 'vendor-shapes.yaml'].join('/'),
  ]);
  expect(find(`see ../${['spec', 'a.md'].join('/')}`)).toEqual([['spec', 'a.md'].join('/')]);
  expect(find(`read ${['..', 'shared', 'notes.md'].join('/')}`)).toEqual([['..', 'shared'].join('/')]);
  expect(find('path: /spec/template/spec/containers/0/args')).toEqual([]);
  expect(find('{op: replace, path: /spec/minReplicas, value: 1}')).toEqual([]);
});
