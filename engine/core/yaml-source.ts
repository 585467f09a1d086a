// YAML parsing that keeps positions, so every diagnostic can say file:line:col.

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseDocument, LineCounter, isMap, isSeq, isPair, isScalar, type Document, type Node } from 'yaml';
import { DiagnosticError, type Diagnostic } from './diagnostics.ts';

export type YamlPath = (string | number)[];

export interface YamlSource {
  file: string;
  doc: Document.Parsed;
  lines: LineCounter;
  /** plain JS value of the document */
  value: unknown;
}

/**
 * Parses shared while a start runs: the engine parses a route file to compile it, then again to
 * fingerprint it for reloads (reload/reload-diff.ts). The same text gives the same (unmutated)
 * source, so within `shareYamlParses()`...release() a file whose text did not change is parsed once.
 * Process-wide on purpose: a hit is checked against the text, so engines starting together share only equal parses.
 */
let shared: { holders: number; byFile: Map<string, { text: string; src: YamlSource }> } | undefined;

/** Starts sharing parses; the returned function ends this holder's share (the memory goes with the last). */
export function shareYamlParses(): () => void {
  shared ??= { holders: 0, byFile: new Map() };
  const s = shared;
  s.holders++;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (--s.holders === 0 && shared === s) shared = undefined;
  };
}

export function parseYamlFile(file: string, text = readFileSync(file, 'utf8')): YamlSource {
  if (!shared) return parseYaml(file, text);
  const key = resolve(file);
  const hit = shared.byFile.get(key);
  // the same file may be named relative or absolute: diagnostics name it as this caller did
  if (hit && hit.text === text) return hit.src.file === file ? hit.src : { ...hit.src, file };
  const src = parseYaml(file, text);
  shared.byFile.set(key, { text, src });
  return src;
}

function parseYaml(file: string, text: string): YamlSource {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const diags: Diagnostic[] = [];
  for (const e of doc.errors) {
    const pos = lines.linePos(e.pos[0]);
    diags.push({ file, line: pos.line, col: pos.col, message: `YAML: ${e.message.split('\n')[0]}` });
  }
  if (diags.length) throw new DiagnosticError(diags);
  return { file, doc, lines, value: doc.toJS({ maxAliasCount: 100 }) };
}

/**
 * Position of the node at `path`. With `key` true, the position of the map key
 * (for "unknown key" diagnostics); otherwise of the value. Falls back to the closest parent.
 */
export function locate(src: YamlSource, path: YamlPath, key = false): { line: number; col: number } {
  let node: unknown = src.doc.contents;
  let pos = 0;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i];
    const last = i === path.length - 1;
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(seg));
      if (!pair) break;
      const keyNode = pair.key as Node;
      if (last && key && keyNode.range) {
        pos = keyNode.range[0];
        node = undefined;
        break;
      }
      node = pair.value;
      const r = (pair.value as Node | null)?.range ?? keyNode.range;
      if (r) pos = r[0];
    } else if (isSeq(node) && typeof seg === 'number') {
      const item = node.items[seg] as Node | undefined;
      if (!item) break;
      node = item;
      if (item.range) pos = item.range[0];
    } else break;
  }
  if (node && path.length === 0 && (node as Node).range) pos = (node as Node).range![0];
  const lp = src.lines.linePos(pos);
  return { line: lp.line, col: lp.col };
}

export function diagAt(src: YamlSource, path: YamlPath, message: string, key = false): Diagnostic {
  const { line, col } = locate(src, path, key);
  return { file: src.file, line, col, message, path: formatPath(path) };
}

export function formatPath(path: YamlPath): string {
  let s = '';
  for (const p of path) s += typeof p === 'number' ? `[${p}]` : s ? `.${p}` : p;
  return s;
}
