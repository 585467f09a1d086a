// The engine knows no vendor and nothing of the sandbox extension: credential keys, simulator
// names and special environments come from the connector documents, the values and environment
// files, or the extension that simulates an environment (EngineExtension.simulation). Any spelling
// counts ("Hubvendor", "HUBVENDOR_BASE_URL", "setSandboxUrls", "sandboxed"): the word is taken in
// this repository, so a general meaning needs another word ("isolated").
import { it, expect } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const ROOT = resolve('.');
const NAMES = /hubvendor|screenvendor|achvendor|sandbox/gi;

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name);
    return d.isDirectory() ? files(p) : [p];
  });
}

/** `file:line: text` of every line of `paths` that names a vendor or the sandbox. */
function namingLines(paths: string[]): string[] {
  const hits: string[] = [];
  for (const file of paths) {
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        const names = [...new Set([...line.matchAll(NAMES)].map((m) => m[0].toLowerCase()))];
        if (names.length)
          hits.push(`${relative(ROOT, file)}:${i + 1}: ${names.join(', ')}: ${line.trim().slice(0, 120)}`);
      });
  }
  return hits;
}

it('no file under engine/ names a vendor or the sandbox', () => {
  const all = files(join(ROOT, 'engine'));
  expect(all.length).toBeGreaterThan(20);
  const hits = namingLines(all);
  expect(hits, `engine/ names a vendor or the sandbox:\n${hits.join('\n')}`).toEqual([]);
});

it('the check finds a name in any spelling', () => {
  const found = (line: string) => [...line.matchAll(NAMES)].map((m) => m[0]);
  expect(found('const HUBVENDOR_BASE_URL = 1')).toEqual(['HUBVENDOR']);
  expect(found('keys.setSandboxUrls(urls) // a sandboxed run')).toEqual(['Sandbox', 'sandbox']);
  expect(found('simulator:acme/path')).toEqual([]);
});
