// YAML parsing that keeps positions, so every diagnostic can say file:line:col. A text parsed
// before comes from the parse cache (yaml-cache.ts) as its plain value; its document, with the
// positions, is composed only when something asks where a node stands (a diagnostic, mostly).

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseDocument, LineCounter, isMap, isSeq, isPair, isScalar, type Document, type Node } from 'yaml';
import { DiagnosticError, type Diagnostic } from './diagnostics.ts';
import { cachedValue, rememberValue } from './yaml-cache.ts';

export type YamlPath = (string | number)[];

export interface YamlSource {
  file: string;
  /** the document with positions (composed on first use when the value came from the cache) */
  readonly doc: Document.Parsed;
  readonly lines: LineCounter;
  /** plain JS value of the document */
  value: unknown;
}

/** The document and line counter of one text, composed once, when first asked for. */
class Positions {
  private parsed?: { doc: Document.Parsed; lines: LineCounter };
  constructor(
    private readonly text: string,
    parsed?: { doc: Document.Parsed; lines: LineCounter },
  ) {
    this.parsed = parsed;
  }
  get(): { doc: Document.Parsed; lines: LineCounter } {
    // the text parsed without errors before (that is how its value was cached): it composes the same
    return (this.parsed ??= compose(this.text));
  }
}

const POSITIONS = Symbol('positions');

/**
 * A source whose `doc` and `lines` come from `positions` when read. They are enumerable, so a
 * spread copy (`{ ...src, value }`) still has them (composed by the copy); withFile and withValue
 * copy without composing.
 */
function source(file: string, value: unknown, positions: Positions): YamlSource {
  const src = { file, value } as YamlSource & { [POSITIONS]: Positions };
  Object.defineProperties(src, {
    doc: { get: () => positions.get().doc, enumerable: true },
    lines: { get: () => positions.get().lines, enumerable: true },
    [POSITIONS]: { value: positions },
  });
  return src;
}

function positionsOf(src: YamlSource): Positions {
  return (src as { [POSITIONS]?: Positions })[POSITIONS] ?? new Positions('', { doc: src.doc, lines: src.lines });
}

/** `src` named as `file` (the same text), its positions shared. */
function withFile(src: YamlSource, file: string): YamlSource {
  return source(file, src.value, positionsOf(src));
}

/** `src` holding `value` instead (a route template's instance), its positions shared. */
export function withValue(src: YamlSource, value: unknown): YamlSource {
  return source(src.file, value, positionsOf(src));
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
  if (hit && hit.text === text) return hit.src.file === file ? hit.src : withFile(hit.src, file);
  const src = parseYaml(file, text);
  shared.byFile.set(key, { text, src });
  return src;
}

const OPTIONS = { prettyErrors: false, uniqueKeys: true } as const;
const TO_JS = { maxAliasCount: 100 } as const;

function compose(text: string): { doc: Document.Parsed; lines: LineCounter } {
  const lines = new LineCounter();
  return { doc: parseDocument(text, { lineCounter: lines, ...OPTIONS }), lines };
}

function parseYaml(file: string, text: string): YamlSource {
  const cached = cachedValue(text);
  if (cached) return source(file, cached.value, new Positions(text));
  const parsed = compose(text);
  const diags: Diagnostic[] = [];
  for (const e of parsed.doc.errors) {
    const pos = parsed.lines.linePos(e.pos[0]);
    diags.push({ file, line: pos.line, col: pos.col, message: `YAML: ${e.message.split('\n')[0]}` });
  }
  if (diags.length) throw new DiagnosticError(diags);
  const value = parsed.doc.toJS(TO_JS);
  rememberValue(text, value);
  return source(file, value, new Positions(text, parsed));
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

/**
 * `file` and the position of `path` in `src`, worked out when first read: a start records where
 * each value stands for the diagnostics it may never write.
 */
export function placeOf(src: YamlSource, path: YamlPath, file = src.file): { file: string; line: number; col: number } {
  let at: { line: number; col: number } | undefined;
  const get = () => (at ??= locate(src, path));
  return Object.defineProperties({ file } as { file: string; line: number; col: number }, {
    line: { get: () => get().line, enumerable: true },
    col: { get: () => get().col, enumerable: true },
  });
}

/**
 * diagAt's diagnostic, placed when first read: for problems a caller may drop (the placeholders a
 * reload fingerprint resolves only for their values).
 */
export function lazyDiagAt(src: YamlSource, path: YamlPath, message: string): Diagnostic {
  return Object.assign(placeOf(src, path), { message, path: formatPath(path) });
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
