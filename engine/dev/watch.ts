// Watches the project's files for `engine run --dev`: node:fs watch, recursive (Node 20 supports
// it on Linux, macOS and Windows). Editors save in bursts (temporary file, rename, several
// writes), so changes are collected until the files are quiet for `debounceMs`, then reported once.

import { watch, existsSync, statSync, type FSWatcher } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';

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

/** Editor droppings that never hold project content: backups, swap and lock files, vim's probe. */
const IGNORED = /(~|\.sw[a-p]|\.tmp|\.bak|\/4913|\/\.#[^/]*)$/;

export function watchProject(o: WatchOptions): ProjectWatcher {
  const pending = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    timer = undefined;
    const files = [...pending].sort();
    pending.clear();
    if (files.length) o.onChange(files);
  };
  const watchers: FSWatcher[] = [];
  for (const p of new Set(o.paths)) {
    if (!existsSync(p)) continue;
    // a single file is watched through its folder: an editor's save by rename replaces the inode
    const dir = statSync(p).isDirectory();
    const w = watch(dir ? p : dirname(p), { recursive: dir }, (_event, name) => {
      if (!dir && name && String(name) !== basename(p)) return;
      const file = dir ? join(p, name ? String(name) : '') : p;
      if (IGNORED.test('/' + file)) return;
      pending.add(relative(o.root, file) || file);
      if (timer) clearTimeout(timer);
      timer = setTimeout(flush, o.debounceMs ?? 150);
    });
    w.on('error', (err) => o.onError?.(err, p));
    watchers.push(w);
  }
  return {
    close() {
      if (timer) clearTimeout(timer);
      for (const w of watchers) w.close();
    },
  };
}
