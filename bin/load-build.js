// Loads the build, dist/engine.cjs, with V8's code cache of it: a start then reads compiled
// bytecode instead of parsing and compiling some 3.6 MB of JavaScript, and the functions a start
// runs come compiled too. Node 20 has no compile cache of its own for this
// (module.enableCompileCache is Node 22), hence vm.Script.
//
// `npm run build` writes dist/engine.cjs.cache by starting the sandbox once. V8 refuses a cache
// made by another Node.js or under other V8 flags (NODE_OPTIONS=--max-old-space-size=... is one),
// so a start with flags uses a cache of its own, dist/engine.cjs.<flags>.cache; a start that finds
// no usable cache writes one as it exits, when it may write there (nothing is written otherwise,
// and the start compiles as before). Each cache begins with a CRC-32 of the bundle it was made
// from (V8 checks only the source's length: a bundle edited in place must never run stale code) and
// a CRC-32 of its own bytes (V8 does not check them: a corrupted cache would crash the start).
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { crc32 } from 'node:zlib';

/**
 * Runs the bundle as a CommonJS module and returns its exports with what became of the cache:
 * 'used', 'rejected' (V8 refused it), 'none' (no cache, or one of another bundle) or 'off'
 * (ENGINE_CODE_CACHE=off). `writeCache`: write the cache at exit even when one was used (the build).
 */
export function loadBuild(path, { writeCache = false, mode = process.env.ENGINE_CODE_CACHE } = {}) {
  const file = resolve(path);
  const bytes = readFileSync(file);
  const sum = crc32(bytes);
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
      const c = readFileSync(cacheFile);
      // V8 does not check the cache's own bytes: a corrupted cache would crash the process
      if (c.length > 8 && c.readUInt32LE(0) === sum && c.readUInt32LE(4) === crc32(c.subarray(8)))
        cachedData = c.subarray(8);
    } catch {
      /* no cache yet */
    }
  }
  // the wrapper on the bundle's first line: line numbers of stack traces stay those of the file
  const script = new vm.Script(
    `(function (exports, require, module, __filename, __dirname) {${bytes.toString('utf8')}\n})`,
    { filename: file, cachedData },
  );
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file));
  const codeCache = mode === 'off' ? 'off' : !cachedData ? 'none' : script.cachedDataRejected ? 'rejected' : 'used';
  // the engine's "engine started" log line says it (engine/cli/main.ts)
  globalThis[Symbol.for('engine.codeCache')] = codeCache;
  if (writeCache || codeCache === 'none' || codeCache === 'rejected') {
    // at exit: the cache then holds every function compiled by then, the start's and the requests'
    process.once('exit', () => {
      try {
        if (writeCache) v8.setFlagsFromString('--flush-bytecode');
        const data = script.createCachedData();
        const header = Buffer.alloc(8);
        header.writeUInt32LE(sum, 0);
        header.writeUInt32LE(crc32(data), 4);
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
