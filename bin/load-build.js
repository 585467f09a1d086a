// Loads the build, dist/engine.cjs, with V8's code cache of it: a start then reads compiled
// bytecode instead of parsing and compiling some 4.6 MB of JavaScript, and the functions a start
// runs come compiled too. Node 20 has no compile cache of its own for this
// (module.enableCompileCache is Node 22), hence vm.Script.
//
// `npm run build` writes dist/engine.cjs.cache by starting the sandbox once. V8 refuses a cache
// made by another Node.js or under other V8 flags (NODE_OPTIONS=--max-old-space-size=... is one),
// so a start with flags uses a cache of its own, dist/engine.cjs.<flags>.cache; a start that finds
// no usable cache writes one as it exits, when it may write there (nothing is written otherwise,
// and the start compiles as before). Each cache names the bundle it was made from (V8 checks only
// the source's length: a bundle edited in place must never run stale code) by a CRC-32 of its
// bytes and, to spare a start that CRC (4.6 MB), by the bundle file's identity and change time
// (below), and carries a CRC-32 of its own bytes (V8 does not check them: a corrupted cache would
// crash the start).
import { isAscii } from 'node:buffer';
import { closeSync, fstatSync, openSync, readSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { crc32 } from 'node:zlib';

/**
 * The CommonJS wrapper. The build writes the bundle inside it (build/bundle.mjs), so that V8
 * compiles the file's own text: wrapping it here made a second 4.6 MB string to compile from.
 * On the bundle's first line either way: line numbers of stack traces stay those of the file.
 */
const WRAPPER = '(function (exports, require, module, __filename, __dirname) {';

/**
 * The bytes of an open file, `size` of them, in memory V8 maps for itself (a WebAssembly.Memory)
 * rather than in malloc's. The bundle (4.6 MB) and its code cache (3 MB) are garbage once compiled,
 * and freeing a malloc'ed block that large raises glibc's mmap threshold to its size: the start's
 * later allocations then came from malloc's arenas, which kept some 10 MiB resident after they
 * were freed (idle RSS of one route 79-89 MiB, against 75 with the threshold left as it was).
 */
function readMapped(fd, size) {
  let bytes;
  try {
    bytes = Buffer.from(new WebAssembly.Memory({ initial: Math.max(1, Math.ceil(size / 65_536)) }).buffer, 0, size);
  } catch {
    // no room to map it (a process limited in address space: V8 reserves guard pages around it)
    bytes = Buffer.allocUnsafe(size);
  }
  let read = 0;
  for (let n; read < size && (n = readSync(fd, bytes, read, size - read, read)) > 0;) read += n;
  return bytes.subarray(0, read);
}

/** readMapped of a file by its path. */
function readMappedFile(path) {
  const fd = openSync(path, 'r');
  try {
    return readMapped(fd, fstatSync(fd).size);
  } finally {
    closeSync(fd);
  }
}

/**
 * Cache header: magic, bundle CRC-32, cache CRC-32, then the bundle's size, ino, dev, mtime and ctime
 * (ns), and 4 bytes of padding: the cache's bytes start 8-aligned in a page-aligned read, which V8
 * deserializes in place (a misaligned cache it copied first: 3 MB more to allocate and free).
 */
const MAGIC = 0x33434345; // 'ECC3'
const HEADER = 56;

/** The bundle file's identity and times as a cache header records them; all 0n when none may be recorded. */
const identity = (s) => [s.size, s.ino, s.dev, s.mtimeNs, s.ctimeNs];

/**
 * Runs the bundle as a CommonJS module and returns its exports with what became of the cache:
 * 'used', 'rejected' (V8 refused it), 'none' (no cache, or one of another bundle) or 'off'
 * (ENGINE_CODE_CACHE=off). `writeCache`: write the cache at exit even when one was used (the build).
 */
export function loadBuild(path, { writeCache = false, mode = process.env.ENGINE_CODE_CACHE } = {}) {
  const file = resolve(path);
  // the status first, then the bytes: a change after the status shows in a later start's status
  const fd = openSync(file, 'r');
  let stat;
  let bytes;
  try {
    stat = fstatSync(fd, { bigint: true });
    bytes = readMapped(fd, Number(stat.size));
  } finally {
    closeSync(fd);
  }
  let sum;
  const bundleSum = () => (sum ??= crc32(bytes));
  const flags = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' ').trim();
  const cacheFile = flags ? `${file}.${crc32(flags).toString(16)}.cache` : `${file}.cache`;
  let cachedData;
  // V8 drops the bytecode of functions that have not run for a few full collections, and the
  // sandbox the build starts collects several times before it exits: the build's cache lacked the
  // start's own functions (the bundle's top level, every module's init), which each start then
  // compiled again. Kept while the build writes its cache; the flag is back to its default before
  // the cache is made (V8 takes a cache only under the flags it was made with).
  if (writeCache) v8.setFlagsFromString('--no-flush-bytecode');
  if (mode !== 'off') {
    try {
      const c = readMappedFile(cacheFile);
      if (c.length > HEADER && c.readUInt32LE(0) === MAGIC) {
        const recorded = [0, 1, 2, 3, 4].map((i) => c.readBigUInt64LE(12 + 8 * i));
        // the same file, unchanged since the cache was made (recorded: see unchangedSince), or the same bytes
        const same =
          (recorded[0] !== 0n && identity(stat).every((v, i) => v === recorded[i])) ||
          c.readUInt32LE(4) === bundleSum();
        // V8 does not check the cache's own bytes: a corrupted cache would crash the process
        if (same && c.readUInt32LE(8) === crc32(c.subarray(HEADER))) cachedData = c.subarray(HEADER);
      }
    } catch {
      /* no cache yet */
    }
  }
  // the build writes ASCII (build/bundle.mjs): read as Latin-1, node copies the bytes into a string
  // outside V8's heap, where decoding them as UTF-8 took 8-10 ms; any other file is read as UTF-8
  const text = bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8');
  const script = new vm.Script(text.startsWith(WRAPPER) ? text : `${WRAPPER}${text}\n})`, {
    filename: file,
    cachedData,
  });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file));
  const codeCache = mode === 'off' ? 'off' : !cachedData ? 'none' : script.cachedDataRejected ? 'rejected' : 'used';
  // the engine's "engine started" log line says it (engine/cli/main.ts)
  globalThis[Symbol.for('engine.codeCache')] = codeCache;
  if (writeCache || codeCache === 'none' || codeCache === 'rejected') {
    // at exit: the cache then holds every function compiled by then, the start's and the requests'
    const compiled = bundleSum();
    process.once('exit', () => {
      try {
        if (writeCache) v8.setFlagsFromString('--flush-bytecode');
        const data = script.createCachedData();
        const header = Buffer.alloc(HEADER);
        header.writeUInt32LE(MAGIC, 0);
        header.writeUInt32LE(compiled, 4);
        header.writeUInt32LE(crc32(data), 8);
        unchangedSince(file, stat, compiled).forEach((v, i) => header.writeBigUInt64LE(v, 12 + 8 * i));
        // written aside and renamed: a start reading it meanwhile sees the old cache or the new one
        const partial = `${cacheFile}.${process.pid}.tmp`;
        writeFileSync(partial, Buffer.concat([header, data]));
        renameSync(partial, cacheFile);
      } catch (e) {
        if (writeCache) throw e;
        // a read-only install: starts compile as before
      }
    });
  }
  return { exports: module.exports, codeCache };
}

/**
 * The bundle's identity and times to record beside its CRC-32, when a start may trust them instead:
 * the file still has the status it had when it was read, its bytes are still those compiled, and its
 * last change lies well before now. Any later write, rename or copy then changes its change time
 * (which no program can set back) or its inode; a change within the same tick of the file system's
 * clock as the last one seen here is ruled out by that distance. Otherwise zeros: starts check the CRC.
 */
function unchangedSince(file, stat, compiled) {
  const none = [0n, 0n, 0n, 0n, 0n];
  const fd = openSync(file, 'r');
  try {
    const before = fstatSync(fd, { bigint: true });
    const bytes = readMapped(fd, Number(before.size));
    const after = fstatSync(fd, { bigint: true });
    const same = (a, b) => identity(a).every((v, i) => v === identity(b)[i]);
    const settled = BigInt(Date.now()) * 1_000_000n - after.ctimeNs > 2_000_000_000n;
    return same(stat, before) && same(before, after) && settled && crc32(bytes) === compiled ? identity(after) : none;
  } finally {
    closeSync(fd);
  }
}
