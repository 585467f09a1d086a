// The parse cache of YAML texts: the plain value of each text that parsed without errors, stored
// as JSON under the SHA-256 of the text, so that a start whose YAML did not change reads JSON
// instead of composing YAML documents (the `yaml` library, cold at start, takes about 3 µs a byte:
// some 100 ms for a project's routes and values). yaml-source.ts composes a document only when a
// position is asked for. The CLI turns it on (ENGINE_YAML_CACHE, docs/operations.md); the library
// parses every text unless told where the cache is.
//
// One file, read once per process and written, when it learnt a text, as the process exits.
// Never trusted blindly: a value is served only for the exact text it was parsed from, by the same
// parser and options (the header says which), from a file whose checksum holds and which no other
// user could have written (owned by this user, not writable by group or others, in a folder that
// is neither). Anything else, or any error reading or writing, and the text is parsed as before:
// a read-only or foreign folder never stops a start.

import { createHash } from 'node:crypto';
import {
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
  type Stats,
} from 'node:fs';
import { join } from 'node:path';
import yamlPackage from 'yaml/package.json' with { type: 'json' };

/** What a cached value was parsed by: a new parser version or option reads as another cache. */
const PARSER = `yaml ${yamlPackage.version} uniqueKeys maxAliasCount=100 format 1`;
const FILE = 'yaml-values.json';
/**
 * Entries kept when the file is written: the texts this process read first, then the most recently
 * used, none unused for two weeks, within bounds (every start reads the whole file: this project's
 * YAML is some 130 KB of it).
 */
const MAX_ENTRIES = 2000;
const MAX_BYTES = 1 << 20;
const MAX_AGE_MINUTES = 14 * 24 * 60;

interface Entry {
  /** minutes since the epoch it was last used (when the file was last written) */
  t: number;
  /** the value as JSON */
  j: string;
}

let dir: string | undefined;
let entries: Map<string, Entry> | undefined;
/** keys read or learnt by this process */
const used = new Set<string>();
let learnt = false;

/** Where the cache is (a folder), or undefined: every text is parsed. */
export function setYamlCache(folder: string | undefined): void {
  dir = folder;
  entries = undefined;
  used.clear();
  learnt = false;
}

/** ENGINE_YAML_CACHE: `off`, a folder, or (unset) `.engine/cache` of the project (the working directory). */
export function yamlCacheFolder(env: NodeJS.ProcessEnv, cwd: string): string | undefined {
  const v = env.ENGINE_YAML_CACHE?.trim();
  if (v === 'off') return undefined;
  return join(cwd, v || join('.engine', 'cache'));
}

const keyOf = (text: string) => createHash('sha256').update(text).digest('base64url');

/** The cached value of `text` (a fresh copy), or undefined when it must be parsed. */
export function cachedValue(text: string): { value: unknown } | undefined {
  if (!dir) return undefined;
  const key = keyOf(text);
  const e = (entries ??= read(dir)).get(key);
  if (!e) return undefined;
  try {
    const value: unknown = JSON.parse(e.j);
    used.add(key);
    return { value };
  } catch {
    return undefined;
  }
}

/** Keeps the value `text` parsed to, when JSON gives it back exactly. */
export function rememberValue(text: string, value: unknown): void {
  if (!dir || !exactInJson(value, new Set())) return;
  const key = keyOf(text);
  (entries ??= read(dir)).set(key, { t: 0, j: JSON.stringify(value) });
  used.add(key);
  if (!learnt) {
    learnt = true;
    const at = dir;
    process.once('exit', () => {
      if (dir === at) writeYamlCache();
    });
  }
}

/** Writes what this process learnt (as it exits; tests call it). */
export function writeYamlCache(): void {
  if (dir && learnt) write(dir);
  learnt = false;
}

/**
 * Whether JSON.parse(JSON.stringify(v)) is `v` again: plain objects and arrays (each met once: an
 * alias would come back as two copies), strings, booleans, null and finite numbers other than -0.
 */
function exactInJson(v: unknown, seen: Set<object>): boolean {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v) && !Object.is(v, -0);
  if (typeof v !== 'object' || seen.has(v)) return false;
  seen.add(v);
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (!(i in v) || !exactInJson(v[i], seen)) return false;
    return true;
  }
  if (Object.getPrototypeOf(v) !== Object.prototype || Object.hasOwn(v, '__proto__')) return false;
  for (const k of Object.keys(v)) if (!exactInJson((v as Record<string, unknown>)[k], seen)) return false;
  return Object.getOwnPropertySymbols(v).length === 0;
}

/** Owned by this user and writable by nobody else (where the platform has users). */
function private_(s: Stats): boolean {
  const uid = process.getuid?.();
  return uid === undefined || (s.uid === uid && (s.mode & 0o022) === 0);
}

/** The entries of the cache file, or none when it is missing, damaged, of another parser or not safely ours. */
function read(folder: string): Map<string, Entry> {
  const none = new Map<string, Entry>();
  let fd: number | undefined;
  try {
    const d = statSync(folder);
    if (!d.isDirectory() || !private_(d)) return none;
    fd = openSync(join(folder, FILE), 'r');
    const s = fstatSync(fd);
    if (!s.isFile() || !private_(s)) return none;
    const text = readFileSync(fd, 'utf8');
    const nl = text.indexOf('\n');
    const head = JSON.parse(text.slice(0, nl)) as { parser?: unknown; sha256?: unknown };
    const body = text.slice(nl + 1);
    if (head.parser !== PARSER || head.sha256 !== createHash('sha256').update(body).digest('base64url')) return none;
    const list = JSON.parse(body) as Record<string, Entry>;
    const out = new Map<string, Entry>();
    for (const [k, e] of Object.entries(list))
      if (e && typeof e.j === 'string' && typeof e.t === 'number') out.set(k, { t: e.t, j: e.j });
    return out;
  } catch {
    return none;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Writes the entries (this process's first, then the most recently used, within the bounds) to a
 * file of its own and renames it into place: a reader sees the old file or the new one, and of two
 * processes writing at once the last one's file stays.
 */
function write(folder: string): void {
  let tmp: string | undefined;
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    if (!private_(statSync(folder))) return;
    // what another process wrote meanwhile is kept too
    const all = read(folder);
    const now = Math.floor(Date.now() / 60_000);
    for (const [k, e] of entries ?? [])
      if (used.has(k) || !all.has(k)) all.set(k, used.has(k) ? { t: now, j: e.j } : e);
    const kept: Record<string, Entry> = {};
    let bytes = 0;
    let n = 0;
    for (const [k, e] of [...all].sort((a, b) => b[1].t - a[1].t)) {
      if (e.t < now - MAX_AGE_MINUTES) break;
      bytes += e.j.length + k.length;
      if (++n > MAX_ENTRIES || bytes > MAX_BYTES) break;
      kept[k] = e;
    }
    const body = JSON.stringify(kept);
    const head = JSON.stringify({ parser: PARSER, sha256: createHash('sha256').update(body).digest('base64url') });
    tmp = join(folder, `${FILE}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
    writeFileSync(tmp, `${head}\n${body}`, { mode: 0o600, flag: 'wx' });
    renameSync(tmp, join(folder, FILE));
    tmp = undefined;
  } catch {
    // a read-only project, a full disk: the next start parses as this one did
  } finally {
    if (tmp)
      try {
        unlinkSync(tmp);
      } catch {
        /* gone already */
      }
  }
}
