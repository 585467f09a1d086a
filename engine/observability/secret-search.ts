// Finds every form of every registered secret in a text in one pass, letter case ignored:
// Wu-Manber's multi-pattern search. A window as long as the shortest form slides over the text;
// the last three characters of the window say how far it may jump (most windows hold no block of
// any form, and it jumps almost its whole length), and only where a block ends a form's first
// characters are the forms compared. A regular expression with one alternative per form tries
// every alternative at every position: 25 times slower on a 100 kB body (docs/benchmarks.md).
// The credentials of one call (added on an error path) are searched form by form instead: no
// tables to build for a text searched once.

import type { SecretForm } from './secret-forms.ts';

/**
 * Each UTF-16 code unit folded to lower case where that is one code unit, and the other way round; built once (a
 * constant: one per process).
 */
let tables: { fold: Uint16Array; unfold: Map<number, number[]> } | undefined;
function folding(): { fold: Uint16Array; unfold: Map<number, number[]> } {
  if (tables) return tables;
  const fold = new Uint16Array(65536);
  const unfold = new Map<number, number[]>();
  for (let c = 0; c < 65536; c++) {
    const l = String.fromCharCode(c).toLowerCase();
    fold[c] = l.length === 1 ? l.charCodeAt(0) : c;
    if (fold[c] !== c) unfold.set(fold[c], [...(unfold.get(fold[c]) ?? []), c]);
  }
  return (tables = { fold, unfold });
}

const utf16 = new TextDecoder('utf-16le');

/** `s` folded code unit by code unit: as long as `s`, so positions carry over. */
function fold(s: string, f: Uint16Array): string {
  const u = new Uint16Array(s.length);
  for (let i = 0; i < s.length; i++) u[i] = f[s.charCodeAt(i)];
  return utf16.decode(u);
}

/** Folded forms, each once; a Base64 core if any form of that text is one. */
function folded(forms: readonly SecretForm[], f: Uint16Array): SecretForm[] {
  const byText = new Map<string, boolean>();
  for (const x of forms) {
    const t = fold(x.text, f);
    byText.set(t, (byText.get(t) ?? false) || x.base64);
  }
  return [...byText].map(([text, base64]) => ({ text, base64 }));
}

const BASE64_CHAR = /[A-Za-z0-9+/_-]/;

/** Where a form found at `start` ends; a Base64 core with the rest of its group (two characters, padding). */
function endOf(t: string, start: number, form: SecretForm): number {
  let end = start + form.text.length;
  if (!form.base64) return end;
  for (let k = 0; k < 2 && end < t.length && BASE64_CHAR.test(t[end]); k++) end++;
  for (let k = 0; k < 2; k++) {
    if (t[end] === '=') end++;
    else if (t[end] === '%' && t[end + 1] === '3' && (t[end + 2] === 'D' || t[end + 2] === 'd')) end += 3;
    else break;
  }
  return end;
}

/** Adds [start, end) to ranges ordered by start, merging an overlap with the last one. */
function add(hits: number[] | undefined, start: number, end: number): number[] {
  if (hits && start < hits[hits.length - 1]) hits[hits.length - 1] = Math.max(hits[hits.length - 1], end);
  else (hits ??= []).push(start, end);
  return hits;
}

/** The ranges of a text to mask, as [start, end, start, end, ...], ordered, overlaps merged. */
export interface FormSearch {
  find(t: string): number[] | undefined;
}

/** Ranges of two searches in one list, ordered, overlaps merged. */
export function mergeHits(a: number[] | undefined, b: number[] | undefined): number[] | undefined {
  if (!a || !b) return a ?? b;
  const pairs: [number, number][] = [];
  for (const h of [a, b]) for (let i = 0; i < h.length; i += 2) pairs.push([h[i], h[i + 1]]);
  pairs.sort((x, y) => x[0] - y[0]);
  let out: number[] | undefined;
  for (const [s, e] of pairs) out = add(out, s, e);
  return out;
}

/** Characters of a block: 3. Classes of characters (a class may hold several: compared exactly after): at most 40. */
const B = 3;
const CLASSES = 40;

/** The registered secrets' forms: tables built once, each text searched in one pass. */
export class SecretSearch implements FormSearch {
  private readonly forms: SecretForm[];
  /** the window: the shortest form's length, at most 255 (a shift is one byte) */
  private readonly m: number;
  /** character -> class (0: in no form) */
  private readonly cls = new Uint8Array(65536);
  /** block -> how far the window may move; 0: a form's first m characters may end here */
  private readonly shift: Uint8Array;
  /** block -> the forms whose first m characters end with it */
  private readonly ends = new Map<number, number[]>();
  private readonly f: Uint16Array;

  constructor(forms: readonly SecretForm[]) {
    const { fold: f, unfold } = folding();
    this.f = f;
    this.forms = folded(forms, f);
    this.m = Math.min(255, ...this.forms.map((x) => x.text.length));
    let n = 0;
    for (const { text } of this.forms)
      for (let i = 0; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (this.cls[c]) continue;
        this.cls[c] = 1 + (n++ % (CLASSES - 1));
        // upper case (and any other character folding to this one) in the same class
        for (const u of unfold.get(c) ?? []) this.cls[u] = this.cls[c];
      }
    const { m, cls } = this;
    this.shift = new Uint8Array(CLASSES ** B).fill(m - B + 1);
    this.forms.forEach(({ text }, i) => {
      for (let j = B - 1; j < m; j++) {
        const h =
          (cls[text.charCodeAt(j - 2)] * CLASSES + cls[text.charCodeAt(j - 1)]) * CLASSES + cls[text.charCodeAt(j)];
        this.shift[h] = Math.min(this.shift[h], m - 1 - j);
        if (j === m - 1) this.ends.set(h, [...(this.ends.get(h) ?? []), i]);
      }
    });
  }

  find(t: string): number[] | undefined {
    const { m, cls, shift, f } = this;
    const len = t.length;
    let hits: number[] | undefined;
    let pos = m - 1;
    while (pos < len) {
      const h = (cls[t.charCodeAt(pos - 2)] * CLASSES + cls[t.charCodeAt(pos - 1)]) * CLASSES + cls[t.charCodeAt(pos)];
      const s = shift[h];
      if (s !== 0) {
        pos += s;
        continue;
      }
      const start = pos - m + 1;
      for (const i of this.ends.get(h)!) {
        const form = this.forms[i];
        if (start + form.text.length > len) continue;
        let k = 0;
        while (k < form.text.length && f[t.charCodeAt(start + k)] === form.text.charCodeAt(k)) k++;
        if (k === form.text.length) hits = add(hits, start, endOf(t, start, form));
      }
      pos++;
    }
    return hits;
  }
}

/** A few forms (one call's credentials) searched one by one in the folded text. */
export class FewForms implements FormSearch {
  private readonly forms: SecretForm[];
  private readonly f: Uint16Array;

  constructor(forms: readonly SecretForm[]) {
    this.f = folding().fold;
    this.forms = folded(forms, this.f);
  }

  find(t: string): number[] | undefined {
    const lower = fold(t, this.f);
    let pairs: [number, number][] | undefined;
    for (const form of this.forms) {
      for (let i = lower.indexOf(form.text); i >= 0; i = lower.indexOf(form.text, i + 1))
        (pairs ??= []).push([i, endOf(t, i, form)]);
    }
    if (!pairs) return undefined;
    pairs.sort((x, y) => x[0] - y[0]);
    let out: number[] | undefined;
    for (const [s, e] of pairs) out = add(out, s, e);
    return out;
  }
}
