// What a reload changed. A route's fingerprint hashes what its compiled form is built from and a
// file edit can change: its YAML with placeholders resolved from the current values and
// environment, the project files it names (schemas, transforms, templates), the other documents
// of its folder (shared definitions) and the expression limits. Routes are compared by id.

import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parse } from 'yaml';
import { parseYamlFile } from '../dsl/yaml-source.ts';
import { resolvePlaceholders } from '../config/placeholders.ts';
import type { ValuesSet } from '../config/values.ts';
import type { CompiledRoute } from './route.ts';

export interface RouteChanges {
  added: string[];
  removed: string[];
  changed: string[];
}

/** Fingerprints by route id, for the routes of one load. */
export function fingerprintRoutes(routes: CompiledRoute[], values: ValuesSet, root: string): Map<string, string> {
  const files = new Map<string, string | undefined>();
  const read = (abs: string): string | undefined => {
    if (!files.has(abs)) {
      let text: string | undefined;
      try { if (statSync(abs).isFile()) text = readFileSync(abs, 'utf8'); } catch { /* not a file */ }
      files.set(abs, text);
    }
    return files.get(abs);
  };
  const folders = new Map<string, string>();
  const folderDocs = (dir: string): string => {
    let h = folders.get(dir);
    if (h === undefined) {
      const hash = createHash('sha256');
      for (const name of safeList(dir).filter((n) => /\.ya?ml$/.test(n)).sort()) {
        const text = read(join(dir, name)) ?? '';
        // route files count only for themselves; anything else here may be shared by the routes
        if (!isRoute(text)) hash.update(name).update('\0').update(text).update('\0');
      }
      h = hash.digest('hex');
      folders.set(dir, h);
    }
    return h;
  };
  const limits = JSON.stringify(values.environment.engine.expressions);
  const out = new Map<string, string>();
  for (const route of routes) {
    const hash = createHash('sha256').update(limits);
    try {
      const src = parseYamlFile(route.file);
      const raw = src.value as Record<string, unknown>;
      const vf = typeof raw.values === 'string' ? values.find(raw.values) : undefined;
      const resolved = resolvePlaceholders(raw, vf, src).value;
      hash.update(stable(resolved));
      for (const name of pathLike(resolved)) {
        const text = read(resolve(root, name));
        if (text !== undefined) hash.update('\0').update(name).update('\0').update(text);
      }
    } catch {
      // the load just compiled this file; should it change in between, it counts as changed
      hash.update(String(Math.random()));
    }
    hash.update(folderDocs(dirname(resolve(route.file))));
    out.set(route.id, hash.digest('hex'));
  }
  return out;
}

export function diffRoutes(prev: Map<string, string>, next: Map<string, string>): RouteChanges {
  const added: string[] = [];
  const changed: string[] = [];
  for (const [id, fp] of next) {
    const old = prev.get(id);
    if (old === undefined) added.push(id);
    else if (old !== fp) changed.push(id);
  }
  const removed = [...prev.keys()].filter((id) => !next.has(id));
  return { added: added.sort(), removed: removed.sort(), changed: changed.sort() };
}

/** `1 added (a), 2 changed (b, c)`; `no route changed` when nothing did. */
export function describeChanges(c: RouteChanges): string {
  const part = (n: string[], what: string) => (n.length ? `${n.length} ${what} (${n.join(', ')})` : '');
  const parts = [part(c.added, 'added'), part(c.removed, 'removed'), part(c.changed, 'changed')].filter(Boolean);
  return parts.length ? parts.join(', ') : 'no route changed';
}

function isRoute(text: string): boolean {
  try {
    const v = parse(text) as unknown;
    return !!v && typeof v === 'object' && 'from' in v;
  } catch {
    return false;
  }
}

function safeList(dir: string): string[] {
  try { return readdirSync(dir); } catch { return []; }
}

/** Strings that may name a project file (`schemas/x.json`, `transforms/a/b.jsonata`). */
function pathLike(v: unknown, out = new Set<string>()): Set<string> {
  if (typeof v === 'string') {
    if (/^[\w.@-]+(\/[\w.@-]+)+$/.test(v) && !v.includes('..')) out.add(v);
  } else if (Array.isArray(v)) for (const x of v) pathLike(x, out);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) pathLike(x, out);
  return out;
}

/** JSON with sorted keys, so equal documents hash equal. */
function stable(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stable).join(',')}]`;
  if (v && typeof v === 'object') return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${stable((v as Record<string, unknown>)[k])}`).join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}
