// Watches the project's files for `engine run --dev`. One non-recursive node:fs watch per folder:
// Node 20's recursive watch on Linux follows files by inode and goes blind to a file once a save
// by rename (sed -i, editors writing a temporary file) replaced it, while a folder's own watch
// sees every name in it. Folders that appear are watched, those that go away are dropped.
// Editors save in bursts (temporary file, rename, several writes), so changes are collected until
// the files are quiet for `debounceMs`, then reported once.

import { watch, existsSync, readdirSync, statSync, type Dirent, type FSWatcher } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';

export interface ProjectWatcher {
  close(): void;
}

export interface WatchOptions {
  /** files or directories; those that do not exist are skipped */
  paths: string[];
  /** quiet time before a burst of changes is reported, ms (default 150) */
  debounceMs?: number;
  /** the changed files, relative to `root` */
  onChange(files: string[]): void;
  onError?(err: Error, path: string): void;
  root: string;
}

/**
 * Editor and tool droppings that never hold project content: backups (`~`, .bak), swap files,
 * temporary files (.tmp, sed -i's sedXXXXXX), emacs locks (.#x) and vim's write probe (4913).
 */
const IGNORED = /(~|\.sw[a-p]|\.tmp|\.bak|\/4913|\/\.#[^/]*|\/sed[A-Za-z0-9]{6})$/;

export function watchProject(o: WatchOptions): ProjectWatcher {
  const pending = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const flush = () => {
    timer = undefined;
    const files = [...pending].sort();
    pending.clear();
    if (files.length && !closed) o.onChange(files);
  };
  const changed = (file: string) => {
    if (IGNORED.test('/' + file)) return;
    pending.add(relative(o.root, file) || file);
    if (timer) clearTimeout(timer);
    timer = setTimeout(flush, o.debounceMs ?? 150);
  };

  /** folder -> its watch, for every folder under a watched directory */
  const folders = new Map<string, FSWatcher>();
  /** watches of single files (through their folder, as a save by rename replaces the file) */
  const singles: FSWatcher[] = [];

  const isDir = (p: string): boolean => {
    try {
      return statSync(p).isDirectory();
    } catch {
      return false;
    }
  };
  const drop = (dir: string) => {
    for (const [d, w] of folders) {
      if (d === dir || d.startsWith(dir + sep)) {
        w.close();
        folders.delete(d);
      }
    }
  };
  /** Watches `dir` and the folders below it; `fresh` when it appeared after the start: its files count as changed. */
  const add = (dir: string, fresh: boolean) => {
    if (folders.has(dir) || IGNORED.test('/' + dir)) return;
    let w: FSWatcher;
    try {
      w = watch(dir, (_event, name) => onEvent(dir, name ? String(name) : ''));
    } catch (err) {
      // gone again before it could be watched: its parent's watch reports that
      if (isDir(dir)) o.onError?.(err as Error, dir);
      return;
    }
    w.on('error', (err) => {
      // a removed folder's watch may fail as it goes; only a folder still there is worth a warning
      if (isDir(dir)) o.onError?.(err, dir);
      drop(dir);
    });
    folders.set(dir, w);
    let entries: Dirent[] = [];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      /* removed meanwhile */
    }
    for (const e of entries) {
      const p = join(dir, e.name);
      if (e.isDirectory()) add(p, fresh);
      else if (fresh) changed(p);
    }
  };
  const onEvent = (dir: string, name: string) => {
    if (closed) return;
    const file = name ? join(dir, name) : dir;
    if (IGNORED.test('/' + file)) return;
    if (file !== dir) {
      if (isDir(file)) add(file, true);
      else if (folders.has(file)) drop(file);
    }
    changed(file);
  };

  for (const p of new Set(o.paths)) {
    if (!existsSync(p)) continue;
    if (isDir(p)) {
      add(p, false);
      continue;
    }
    const w = watch(dirname(p), (_event, name) => {
      if (!closed && (!name || String(name) === basename(p))) changed(p);
    });
    w.on('error', (err) => o.onError?.(err, p));
    singles.push(w);
  }
  return {
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      for (const w of [...folders.values(), ...singles]) w.close();
      folders.clear();
    },
  };
}
