// The parse cache of YAML texts (engine/core/yaml-cache.ts): a text parsed once is read back as
// JSON by later processes, never for another text, never from a file it cannot trust, and the
// positions of a cached text are composed when a diagnostic asks, where a parse would put them.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { chmodSync, chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const composed = vi.hoisted(() => ({ n: 0 }));
vi.mock('yaml', async (original) => {
  const yaml = await original<typeof import('yaml')>();
  return {
    ...yaml,
    parseDocument: (...a: Parameters<typeof yaml.parseDocument>) => {
      composed.n++;
      return yaml.parseDocument(...a);
    },
  };
});

const { writeYamlCache } = await import('../../engine/core/yaml-cache.ts');
const { setCacheFolder: setYamlCache } = await import('../../engine/core/disk-cache.ts');
const { parseYamlFile, diagAt, withValue } = await import('../../engine/core/yaml-source.ts');

const dirs: string[] = [];
afterEach(() => {
  setYamlCache(undefined);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function project(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'yaml-cache-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

/** A new process as far as the cache goes: what this one learnt is written, then read afresh. */
function nextProcess(cache: string): void {
  writeYamlCache();
  setYamlCache(cache);
}

/** Parses `file` and says whether the `yaml` library composed a document for it. */
function parse(file: string) {
  const before = composed.n;
  const src = parseYamlFile(file);
  return { src, composed: composed.n > before };
}

const ROUTE =
  'id: fx\nfrom:\n  http: { method: POST, path: /fx }\nsteps:\n  - set-body: { a: 1, b: [true, null, "x"] }\n';

describe('the YAML parse cache', () => {
  it('gives a later process the value of an unchanged text without parsing it, and composes its positions only when asked', () => {
    const dir = project({ 'route.yaml': ROUTE });
    const cache = join(dir, '.engine', 'cache');
    setYamlCache(cache);
    const first = parse(join(dir, 'route.yaml'));
    expect(first.composed).toBe(true);
    const where = diagAt(first.src, ['steps', 0, 'set-body', 'b', 2], 'here');
    nextProcess(cache);
    const again = parse(join(dir, 'route.yaml'));
    expect(again.composed).toBe(false);
    expect(again.src.value).toEqual(first.src.value);
    // a fresh copy: a caller changing its value changes no later parse
    expect(again.src.value).not.toBe(first.src.value);
    const before = composed.n;
    expect(diagAt(again.src, ['steps', 0, 'set-body', 'b', 2], 'here')).toEqual(where);
    expect(composed.n).toBe(before + 1);
    // a route template's instance shares the positions composed for its file
    expect(diagAt(withValue(again.src, { id: 'fx-a' }), ['id'], 'x').line).toBe(1);
    expect(composed.n).toBe(before + 1);
  });

  it('never serves the value of another text: an edit of the same length is parsed again', () => {
    const dir = project({ 'route.yaml': ROUTE });
    const cache = join(dir, 'cache');
    setYamlCache(cache);
    parse(join(dir, 'route.yaml'));
    nextProcess(cache);
    writeFileSync(join(dir, 'route.yaml'), ROUTE.replace('/fx', '/fy'));
    const edited = parse(join(dir, 'route.yaml'));
    expect(edited.composed).toBe(true);
    expect((edited.src.value as { from: { http: { path: string } } }).from.http.path).toBe('/fy');
  });

  it('keeps only values JSON gives back exactly: not infinities, -0, NaN or a mapping shared through an alias', () => {
    const texts = {
      'inf.yaml': 'limit: .inf\n',
      'nan.yaml': 'x: .nan\n',
      'zero.yaml': 'x: -0\n',
      'alias.yaml': 'base: &b { retries: 3 }\nfirst: *b\n',
      'plain.yaml': 'x: 1\n',
    };
    const dir = project(texts);
    const cache = join(dir, 'cache');
    setYamlCache(cache);
    for (const f of Object.keys(texts)) parse(join(dir, f));
    nextProcess(cache);
    for (const f of Object.keys(texts)) expect(parse(join(dir, f)).composed, f).toBe(f !== 'plain.yaml');
    const alias = parseYamlFile(join(dir, 'alias.yaml')).value as { base: object; first: object };
    expect(alias.first).toBe(alias.base);
    expect(Object.is((parseYamlFile(join(dir, 'zero.yaml')).value as { x: number }).x, -0)).toBe(true);
  });

  it('never caches a text with errors: each parse reports them at their place', () => {
    const dir = project({ 'bad.yaml': 'a: 1\na: 2\n' });
    const cache = join(dir, 'cache');
    const problems = () => {
      try {
        parseYamlFile(join(dir, 'bad.yaml'));
      } catch (e) {
        return (e as import('../../engine/core/diagnostics.ts').DiagnosticError).diagnostics.map(
          (d) => `${d.line}:${d.col} ${d.message}`,
        );
      }
      return [];
    };
    setYamlCache(cache);
    const first = problems();
    expect(first).toHaveLength(1);
    nextProcess(cache);
    expect(problems()).toEqual(first);
  });

  it('reads nothing from a damaged file, one of another parser, or one others could have written', () => {
    const dir = project({ 'route.yaml': ROUTE });
    const cache = join(dir, 'cache');
    const file = join(cache, 'yaml-values.json');
    setYamlCache(cache);
    parse(join(dir, 'route.yaml'));
    writeYamlCache();
    const good = readFileSync(file, 'utf8');
    const [head, body] = [good.slice(0, good.indexOf('\n')), good.slice(good.indexOf('\n') + 1)];
    const sum = (b: string) => createHash('sha256').update(b).digest('base64url');
    const served = (text: string, mode = 0o600) => {
      writeFileSync(file, text);
      chmodSync(file, mode);
      setYamlCache(cache);
      const p = parse(join(dir, 'route.yaml'));
      expect(p.src.value).toEqual({
        id: 'fx',
        from: { http: { method: 'POST', path: '/fx' } },
        steps: [{ 'set-body': { a: 1, b: [true, null, 'x'] } }],
      });
      return !p.composed;
    };
    expect(served(good)).toBe(true);
    // a value changed without its checksum
    expect(served(`${head}\n${body.replace('/fx', '/fz')}`)).toBe(false);
    // a poisoned value with a checksum that holds, in a file others may write
    const poisoned = body.replace('/fx', '/evil');
    const poisonedFile = `${head.replace(/"sha256":"[^"]+"/, `"sha256":"${sum(poisoned)}"`)}\n${poisoned}`;
    if (process.platform !== 'win32') {
      writeFileSync(file, poisonedFile);
      chmodSync(file, 0o666);
      setYamlCache(cache);
      expect(
        (parseYamlFile(join(dir, 'route.yaml')).value as { from: { http: { path: string } } }).from.http.path,
      ).toBe('/fx');
      chmodSync(cache, 0o777);
      expect(served(good)).toBe(false);
      chmodSync(cache, 0o700);
    }
    // another parser (a new version of the `yaml` library) wrote it
    expect(served(`${head.replace(/"parser":"yaml [^ ]+/, '"parser":"yaml 0.0.0')}\n${body}`)).toBe(false);
    expect(served('not json')).toBe(false);
    expect(served(good)).toBe(true);
  });

  // the image warms its caches at build, as root, and runs as another user (Dockerfile): root's
  // files are as trusted as the engine's own; another user's are not
  it.runIf(process.getuid?.() === 0)('serves a file root owns to another user, never one a third user owns', () => {
    const dir = project({ 'route.yaml': ROUTE });
    const cache = join(dir, 'cache');
    setYamlCache(cache);
    parse(join(dir, 'route.yaml'));
    writeYamlCache();
    chmodSync(join(cache, 'yaml-values.json'), 0o644);
    chmodSync(cache, 0o755);
    const uid = vi.spyOn(process, 'getuid').mockReturnValue(4242);
    try {
      setYamlCache(cache);
      expect(parse(join(dir, 'route.yaml')).composed).toBe(false);
      chownSync(join(cache, 'yaml-values.json'), 4343, 0);
      setYamlCache(cache);
      expect(parse(join(dir, 'route.yaml')).composed).toBe(true);
    } finally {
      uid.mockRestore();
    }
  });

  it('drops a text no process read for two weeks when it writes', () => {
    const dir = project({ 'old.yaml': 'a: 1\n', 'new.yaml': 'b: 2\n' });
    const cache = join(dir, 'cache');
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(new Date('2026-01-01T00:00:00Z'));
      setYamlCache(cache);
      parse(join(dir, 'old.yaml'));
      nextProcess(cache);
      vi.setSystemTime(new Date('2026-01-16T00:00:00Z'));
      parse(join(dir, 'new.yaml'));
      nextProcess(cache);
      expect(parse(join(dir, 'new.yaml')).composed).toBe(false);
      expect(parse(join(dir, 'old.yaml')).composed).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('parses as before where the cache cannot be written or read', () => {
    const dir = project({ 'route.yaml': ROUTE, 'a-file': '' });
    // a folder below a file can never be made
    const cache = join(dir, 'a-file', 'cache');
    setYamlCache(cache);
    expect(parse(join(dir, 'route.yaml')).composed).toBe(true);
    expect(() => nextProcess(cache)).not.toThrow();
    expect(parse(join(dir, 'route.yaml')).composed).toBe(true);
  });
});
