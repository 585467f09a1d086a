// A start parses each route file once for its routes and its reload fingerprints (shareYamlParses):
// an unchanged text gives the parse already made, an edited text a new one, and nothing is kept after.
import { describe, it, expect, afterEach } from 'vitest';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parseYamlFile, shareYamlParses } from '../../engine/core/yaml-source.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function file(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'yaml-share-'));
  dirs.push(dir);
  const f = join(dir, 'route.yaml');
  writeFileSync(f, text);
  return f;
}

describe('shareYamlParses', () => {
  it('parses an unchanged file once while shared, under either name, and names it as each caller did', () => {
    const f = file('from:\n  http: { path: /a }\n');
    const release = shareYamlParses();
    try {
      const a = parseYamlFile(f);
      const b = parseYamlFile(relative(process.cwd(), f));
      expect(b.doc).toBe(a.doc);
      expect(b.file).toBe(relative(process.cwd(), f));
      expect(a.file).toBe(f);
    } finally {
      release();
    }
  });

  it('parses an edited file again: the text decides, not the name', () => {
    const f = file('from:\n  http: { path: /a }\n');
    const release = shareYamlParses();
    try {
      const a = parseYamlFile(f);
      writeFileSync(f, 'from:\n  http: { path: /b }\n');
      const b = parseYamlFile(f);
      expect(b.doc).not.toBe(a.doc);
      expect(b.value).toEqual({ from: { http: { path: '/b' } } });
    } finally {
      release();
    }
  });

  it('keeps nothing once the last holder released', () => {
    const f = file('a: 1\n');
    const outer = shareYamlParses();
    const inner = shareYamlParses();
    const a = parseYamlFile(f);
    inner();
    expect(parseYamlFile(f).doc).toBe(a.doc);
    outer();
    expect(parseYamlFile(f).doc).not.toBe(a.doc);
  });
});
