// `--set <file>:<prop>=value` may add a property the values file does not have (a new
// subscription of the gateway, say), so "not in the file" alone cannot mean "typo". A scoped name
// is accepted when the file has it, when a route's {{placeholder}} refers to it, or when it adds a
// new entry to a map-valued property of the file; a name that exists nowhere, goes through a
// plain value, or differs from an existing entry by a typo is refused with a suggestion.

import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';
import { didYouMean } from '../core/diagnostics.ts';

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g;

/** Dotted paths of the map-valued properties of a values tree, empty maps included. */
function mapPaths(value: unknown, prefix = '', out = new Set<string>()): Set<string> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return out;
  if (prefix) addWithParents(prefix, out);
  for (const [k, v] of Object.entries(value)) mapPaths(v, prefix ? `${prefix}.${k}` : k, out);
  return out;
}

/** A dotted key `a.b.c` (YAML `a: {b.c: 1}` too) makes `a` and `a.b` maps. */
function addWithParents(path: string, out: Set<string>): void {
  const parts = path.split('.');
  for (let i = 1; i <= parts.length; i++) out.add(parts.slice(0, i).join('.'));
}

function parentMaps(keys: Iterable<string>, out = new Set<string>()): Set<string> {
  for (const k of keys) {
    const i = k.lastIndexOf('.');
    if (i > 0) addWithParents(k.slice(0, i), out);
  }
  return out;
}

/**
 * The `{{placeholder}}` keys of route files, by the values file their `values:` names (as
 * written: full or base name), or for a route that names none, the `values:` of the connector
 * document (a `clients:` document) of its folder. Unparsable files are skipped: loading the
 * routes reports them.
 */
export function routePlaceholders(paths: string[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const add = (name: string, text: string): void => {
    const key = name.replace(/\.values\.yaml$/, '');
    const set = out.get(key) ?? new Set<string>();
    for (const m of text.matchAll(PLACEHOLDER)) set.add(m[1]);
    out.set(key, set);
  };
  const read = (p: string): { text: string; doc: Record<string, unknown> } | undefined => {
    if (!/\.ya?ml$/.test(p) || !existsSync(p) || statSync(p).isDirectory()) return undefined;
    const text = readFileSync(p, 'utf8');
    try {
      const doc = parse(text);
      return doc && typeof doc === 'object' && !Array.isArray(doc) ? { text, doc } : undefined;
    } catch {
      return undefined;
    }
  };
  /** The values a route without its own takes: those of the connector document of its folder. */
  const folderValues = new Map<string, string | undefined>();
  const connectorValues = (dir: string): string | undefined => {
    if (!folderValues.has(dir)) {
      let name: string | undefined;
      for (const e of existsSync(dir) ? readdirSync(dir).sort() : []) {
        const f = read(join(dir, e));
        if (f && 'clients' in f.doc && typeof f.doc.values === 'string') {
          name = f.doc.values;
          break;
        }
      }
      folderValues.set(dir, name);
    }
    return folderValues.get(dir);
  };
  const visit = (p: string): void => {
    if (!existsSync(p)) return;
    if (statSync(p).isDirectory()) {
      for (const e of readdirSync(p)) visit(join(p, e));
      return;
    }
    const f = read(p);
    if (!f) return;
    const own = f.doc.values;
    const name =
      typeof own === 'string' ? own : own === undefined && 'from' in f.doc ? connectorValues(dirname(p)) : undefined;
    if (name !== undefined) add(name, f.text);
  };
  for (const p of paths) visit(p);
  return out;
}

export interface ScopeFacts {
  /** the file's properties (with the environment's overrides) */
  keys: Set<string>;
  /** its map-valued properties */
  maps: Set<string>;
  /** properties routes using the file refer to */
  referenced: Set<string>;
}

/** The facts of one values file: its property keys, the maps of its tree, what placeholders ask of it. */
export function scopeFacts(keys: Set<string>, tree: unknown, referenced: Set<string>): ScopeFacts {
  return { keys, maps: parentMaps(keys, mapPaths(tree)), referenced };
}

/** Why `--set <file>:<key>` would change nothing the file or its routes know, or undefined. */
export function scopedSetProblem(key: string, f: ScopeFacts): string | undefined {
  if (f.keys.has(key) || f.referenced.has(key)) return undefined;
  if (f.maps.has(key)) {
    const children = [...f.keys].filter((k) => k.startsWith(key + '.')).slice(0, 3);
    return `'${key}' is a group of properties (${children.join(', ')}${children.length === 3 ? ', ...' : ''}): set one of them`;
  }
  const parts = key.split('.');
  let i = parts.length - 1;
  while (i > 0 && !f.maps.has(parts.slice(0, i).join('.'))) i--;
  const known = [...f.keys, ...f.referenced];
  const near = didYouMean(key, known);
  const hint = near ? `; did you mean '${near}'?` : '';
  if (i === 0) return `no property '${key}'${hint}`;
  const parent = parts.slice(0, i).join('.');
  const child = `${parent}.${parts[i]}`;
  if (f.keys.has(child)) return `'${child}' is a value, not a map: '${key}' cannot be added below it${hint}`;
  // a new entry of the map `parent`, unless its name is a slip of an existing entry's
  const siblings = new Set<string>();
  for (const k of [...f.keys, ...f.maps])
    if (k.startsWith(parent + '.')) siblings.add(k.slice(parent.length + 1).split('.')[0]);
  const typo = [...siblings].find((s) => s !== parts[i] && slipOf(parts[i], s));
  if (!typo) return undefined;
  return `no property '${key}'; did you mean '${[parent, typo, ...parts.slice(i + 1)].join('.')}'?`;
}

/**
 * Whether `typed` is `name` with one slip of the keyboard: other case, two neighbours swapped, or
 * one character more or less. Entries of a map are names people choose (subscriptions, tools), so
 * an edit distance would refuse real new ones: `crm-agent` is 3 edits from `demo-agent`, `bank-b`
 * one from `bank-a`.
 */
function slipOf(typed: string, name: string): boolean {
  const a = typed.toLowerCase();
  const b = name.toLowerCase();
  if (a === b) return true;
  if (a.length === b.length) {
    let i = 0;
    while (a[i] === b[i]) i++;
    return a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
  }
  const [short, long] = a.length < b.length ? [a, b] : [b, a];
  if (long.length - short.length !== 1) return false;
  let i = 0;
  while (i < short.length && short[i] === long[i]) i++;
  return short.slice(i) === long.slice(i + 1);
}
