// One process at a time in an embedded store's folder: PGlite is a single-process database, and a
// second engine opening the same folder (two `npm start`, tests in parallel) would corrupt it. The
// lock is a file beside the folder holding the owner's pid; a lock whose process is gone is taken over.

import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the process exists, owned by another user
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the lock of `dir` for this process; returns its release. Throws when a live process holds it. */
export function lockEmbeddedDir(dir: string): () => void {
  const file = `${dir}.lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(file, { force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const pid = Number(readFileSync(file, 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0 && alive(pid))
        throw new Error(
          `the embedded store ${dir} is in use by process ${pid}: one process per folder (set engine.store.embedded.dir, or use PostgreSQL)`,
          { cause: e },
        );
      rmSync(file, { force: true });
    }
  }
  throw new Error(`could not take the lock ${file}`);
}
