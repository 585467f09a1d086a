// The engine command's start-up caches in one folder (`.engine/cache` of the project, ENGINE_CACHE):
// what a start works out from a text that did not change since the last start (a YAML file's value,
// yaml-cache.ts; see docs/operations.md for the others) is stored under the SHA-256 of that text
// and read back instead of worked out again. The CLI turns them on; the library works everything
// out unless told where the folder is.
//
// Each cache is one file, read once per process and written, when the process learnt something, as
// it exits. Never trusted blindly: an entry is served only for the exact text it was made from, by
// the same producer (the header's `version`: a library's version and options), from a file whose
// checksum holds and which no other user could have written (owned by this user, not writable by
// group or others, in a folder that is neither). Anything else, or any error reading or writing,
// and the text is worked out as before: a read-only or foreign folder never stops a start.

import { createHash } from 'node:crypto';
import {
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
  type Stats,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { StringDecoder } from 'node:string_decoder';

/** None unused for two weeks is kept when a file is written. */
const MAX_AGE_MINUTES = 14 * 24 * 60;

interface Entry {
  /** minutes since the epoch it was last used (when the file was last written) */
  t: number;
  /** what is kept, as text */
  j: string;
}

/** The folder every cache is in, or undefined: nothing is read or kept. */
let folder: string | undefined;
const caches: DiskCache[] = [];

/** Where the caches are (a folder), or undefined: everything is worked out. */
export function setCacheFolder(dir: string | undefined): void {
  folder = dir;
  for (const c of caches) c.reset();
}

/**
 * ENGINE_CACHE (ENGINE_YAML_CACHE, its first name, still read): `off`, a folder, or (unset)
 * `.engine/cache` of the project (the working directory).
 */
export function cacheFolderFor(env: NodeJS.ProcessEnv, cwd: string): string | undefined {
  const v = (env.ENGINE_CACHE ?? env.ENGINE_YAML_CACHE)?.trim();
  if (v === 'off') return undefined;
  return resolve(cwd, v || join('.engine', 'cache'));
}

/** The key of a text: its SHA-256. */
export const keyOf = (text: string): string => createHash('sha256').update(text).digest('base64url');

/**
 * Whether JSON.parse(JSON.stringify(v)) is `v` again: plain objects and arrays (each met once: an
 * alias would come back as two copies), strings, booleans, null and finite numbers other than -0;
 * and `objectOk` holds for each object (what a cache adds of its own).
 */
export function exactInJson(
  v: unknown,
  objectOk: (o: Record<string, unknown>) => boolean = () => true,
  seen = new Set<object>(),
): boolean {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v) && !Object.is(v, -0);
  if (typeof v !== 'object' || seen.has(v)) return false;
  seen.add(v);
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (!(i in v) || !exactInJson(v[i], objectOk, seen)) return false;
    return true;
  }
  if (Object.getPrototypeOf(v) !== Object.prototype || Object.hasOwn(v, '__proto__')) return false;
  if (Object.getOwnPropertySymbols(v).length > 0) return false;
  const o = v as Record<string, unknown>;
  if (!objectOk(o)) return false;
  for (const k of Object.keys(o)) if (!exactInJson(o[k], objectOk, seen)) return false;
  return true;
}

/** One cache file: text values under keys, within bounds. */
export class DiskCache {
  private entries: Map<string, Entry> | undefined;
  /** keys read or learnt by this process */
  private readonly used = new Set<string>();
  private learnt = false;
  /** whether this process writes the file as it exits */
  private writesAtExit = false;

  /**
   * `file`: its name in the folder; `version`: what made its entries (another reads as another
   * cache); the bounds kept when it is written: the entries this process read first, then the most
   * recently used (every start reads the whole file).
   */
  constructor(
    private readonly file: string,
    private readonly version: string,
    private readonly bounds: { entries: number; bytes: number },
  ) {
    caches.push(this);
  }

  /** Whether a folder is set: callers skip the work of keeping an entry otherwise. */
  get on(): boolean {
    return folder !== undefined;
  }

  reset(): void {
    this.entries = undefined;
    this.used.clear();
    this.learnt = false;
  }

  /** The text kept under `key`, or undefined. */
  get(key: string): string | undefined {
    if (!folder) return undefined;
    const e = (this.entries ??= read(folder, this.file, this.version)).get(key);
    if (e) this.used.add(key);
    return e?.j;
  }

  /** Keeps `text` under `key`; written as the process exits. */
  set(key: string, text: string): void {
    if (!folder) return;
    (this.entries ??= read(folder, this.file, this.version)).set(key, { t: 0, j: text });
    this.used.add(key);
    this.learnt = true;
    if (!this.writesAtExit) {
      this.writesAtExit = true;
      // what a later setCacheFolder() dropped (reset) is not written
      process.once('exit', () => this.write());
    }
  }

  /** Writes what this process learnt (as it exits; tests call it). */
  write(): void {
    if (folder && this.learnt) write(folder, this.file, this.version, this.bounds, this.entries, this.used);
    this.learnt = false;
  }
}

/**
 * Owned by this user, or by root (an image built with warm caches runs as another user; root may
 * change the engine itself), and writable by nobody else (where the platform has users).
 */
function private_(s: Stats): boolean {
  const uid = process.getuid?.();
  return uid === undefined || ((s.uid === uid || s.uid === 0) && (s.mode & 0o022) === 0);
}

/**
 * A cache file's header line, the text after it, and the SHA-256 of that text's bytes, read 64 KiB
 * at a time. Neither readFileSync(fd, 'utf8') nor hashing the text as a string would do: the first
 * grows its buffer by doubling, the second takes three bytes a character (4 MiB for a 1.4 MiB
 * file), and freeing a block that large raises glibc's mmap threshold to its size: malloc's arenas
 * then kept some 10 MiB of the start's later allocations resident (idle RSS of one route 79-89
 * MiB, against 75 without).
 */
function readFile(fd: number): { head: string; body: string; sha256: string } | undefined {
  const chunk = Buffer.allocUnsafeSlow(64 * 1024);
  const decoder = new StringDecoder('utf8');
  const hash = createHash('sha256');
  let head: string | undefined;
  let body = '';
  for (let n; (n = readSync(fd, chunk, 0, chunk.length, null)) > 0;) {
    let bytes = chunk.subarray(0, n);
    if (head === undefined) {
      // the header is one short line: in the first chunk, or the file is not a cache
      const nl = bytes.indexOf(10);
      if (nl < 0) return undefined;
      head = bytes.toString('utf8', 0, nl);
      bytes = bytes.subarray(nl + 1);
    }
    hash.update(bytes);
    body += decoder.write(bytes);
  }
  return head === undefined ? undefined : { head, body: body + decoder.end(), sha256: hash.digest('base64url') };
}

/** The entries of a cache file, or none when it is missing, damaged, of another version or not safely ours. */
function read(dir: string, file: string, version: string): Map<string, Entry> {
  const none = new Map<string, Entry>();
  let fd: number | undefined;
  try {
    const d = statSync(dir);
    if (!d.isDirectory() || !private_(d)) return none;
    fd = openSync(join(dir, file), 'r');
    const s = fstatSync(fd);
    if (!s.isFile() || !private_(s)) return none;
    const f = readFile(fd);
    if (!f) return none;
    const head = JSON.parse(f.head) as { parser?: unknown; sha256?: unknown };
    if (head.parser !== version || head.sha256 !== f.sha256) return none;
    const list = JSON.parse(f.body) as Record<string, Entry>;
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
function write(
  dir: string,
  file: string,
  version: string,
  bounds: { entries: number; bytes: number },
  entries: Map<string, Entry> | undefined,
  used: Set<string>,
): void {
  let tmp: string | undefined;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (!private_(statSync(dir))) return;
    // what another process wrote meanwhile is kept too
    const all = read(dir, file, version);
    const now = Math.floor(Date.now() / 60_000);
    for (const [k, e] of entries ?? [])
      if (used.has(k) || !all.has(k)) all.set(k, used.has(k) ? { t: now, j: e.j } : e);
    const kept: Record<string, Entry> = {};
    let bytes = 0;
    let n = 0;
    for (const [k, e] of [...all].sort((a, b) => b[1].t - a[1].t)) {
      if (e.t < now - MAX_AGE_MINUTES) break;
      bytes += e.j.length + k.length;
      if (++n > bounds.entries || bytes > bounds.bytes) break;
      kept[k] = e;
    }
    const body = JSON.stringify(kept);
    const head = JSON.stringify({ parser: version, sha256: keyOf(body) });
    tmp = join(dir, `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
    writeFileSync(tmp, `${head}\n${body}`, { mode: 0o600, flag: 'wx' });
    renameSync(tmp, join(dir, file));
    tmp = undefined;
  } catch {
    // a read-only project, a full disk: the next start works out what this one did
  } finally {
    if (tmp)
      try {
        unlinkSync(tmp);
      } catch {
        /* gone already */
      }
  }
}
