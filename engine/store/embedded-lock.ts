// One process at a time in an embedded store's folder: PGlite is a single-process database, and a
// second engine opening the same folder (two `npm start`, tests in parallel) would corrupt it. The
// lock is a file beside the folder holding the owner's pid; a lock whose process is gone is taken over.
// An engine holding the lock names its listener in a second file beside it (`<dir>.lock.json`:
// `{ pid, url }`, never a secret), so `engine failed` can work through that engine's console API
// instead of being refused; the lock file itself stays the bare pid older engines read.

import { closeSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the process exists, owned by another user
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** folders whose lock this process holds */
const held = new Set<string>();
/** folder -> the URL of this process's engine listening on that store */
const listening = new Map<string, string>();

const ownerFile = (dir: string) => `${dir}.lock.json`;

/** Writes `<dir>.lock.json` once this process both holds the lock and listens (whichever comes last). */
function writeOwner(dir: string): void {
  const url = listening.get(dir);
  if (!held.has(dir) || !url) return;
  const tmp = `${ownerFile(dir)}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, JSON.stringify({ pid: process.pid, url }) + '\n');
    renameSync(tmp, ownerFile(dir));
  } catch {
    // best effort: without it the CLI is refused, as before
    rmSync(tmp, { force: true });
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
      held.add(dir);
      writeOwner(dir);
      return () => {
        held.delete(dir);
        rmSync(ownerFile(dir), { force: true });
        rmSync(file, { force: true });
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const pid = Number(readFileSync(file, 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0 && alive(pid))
        throw new Error(
          `the embedded store ${dir} is in use by process ${pid}: one process per folder (set engine.store.embedded.dir, or use PostgreSQL)`,
          { cause: e },
        );
      rmSync(ownerFile(dir), { force: true });
      rmSync(file, { force: true });
    }
  }
  throw new Error(`could not take the lock ${file}`);
}

/**
 * This process's engine listens at `url` on the embedded store in `dir`: named beside the lock
 * while this process holds it (now, or once the store opens). Returns the withdrawal, for close.
 */
export function announceListener(dir: string, url: string): () => void {
  listening.set(dir, url);
  writeOwner(dir);
  return () => {
    if (listening.get(dir) !== url) return;
    listening.delete(dir);
    if (held.has(dir)) rmSync(ownerFile(dir), { force: true });
  };
}

/** The live process holding `dir`'s lock, with its engine's URL when it named one; undefined when free. */
export function embeddedOwner(dir: string): { pid: number; url?: string } | undefined {
  let pid: number;
  try {
    pid = Number(readFileSync(`${dir}.lock`, 'utf8').trim());
  } catch {
    return undefined;
  }
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return undefined;
  try {
    const o = JSON.parse(readFileSync(ownerFile(dir), 'utf8')) as { pid?: unknown; url?: unknown };
    // a file left by an earlier owner names another pid: not this one's
    if (o.pid === pid && typeof o.url === 'string' && /^https?:\/\//.test(o.url)) return { pid, url: o.url };
  } catch {
    /* no engine named: an older engine, or the CLI holds it */
  }
  return { pid };
}
