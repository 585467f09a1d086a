// Finds every form of every registered secret in a text in one pass, letter case ignored:
// Wu-Manber's multi-pattern search. A window as long as the shortest form slides over the text;
// the last three characters of the window say how far it may jump (most windows hold no block of
// any form, and it jumps almost its whole length), and only where a block ends a form's first
// characters are the forms compared. A regular expression with one alternative per form tries
// every alternative at every position: 25 times slower on a 100 kB body (docs/benchmarks.md).

import type { SecretForm } from './secret-forms.ts';

/** Each UTF-16 code unit folded to lower case where that is one code unit, and the other way round; built once. */
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

const fold = (s: string, f: Uint16Array): string => {
  let out = '';
  for (let i = 0; i < s.length; i++) out += String.fromCharCode(f[s.charCodeAt(i)]);
  return out;
};

/** Characters of a block: 3. Classes of characters (a class may hold several: compared exactly after): at most 40. */
const B = 3;
const CLASSES = 40;

const BASE64_CHAR = /[A-Za-z0-9+/_-]/;

export class SecretSearch {
  private readonly forms: string[];
  private readonly base64: boolean[];
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
    const byText = new Map<string, boolean>();
    for (const x of forms) {
      const t = fold(x.text, this.f);
      byText.set(t, (byText.get(t) ?? false) || x.base64);
    }
    this.forms = [...byText.keys()];
    this.base64 = [...byText.values()];
    this.m = Math.min(255, ...this.forms.map((t) => t.length));
    let n = 0;
    for (const t of this.forms) for (let i = 0; i < t.length; i++) {
      const c = t.charCodeAt(i);
      if (this.cls[c]) continue;
      this.cls[c] = 1 + (n++ % (CLASSES - 1));
      // upper case (and any other character folding to this one) in the same class
      for (const u of unfold.get(c) ?? []) this.cls[u] = this.cls[c];
    }
    const { m, cls } = this;
    this.shift = new Uint8Array(CLASSES ** B).fill(m - B + 1);
    this.forms.forEach((t, i) => {
      for (let j = B - 1; j < m; j++) {
        const h = (cls[t.charCodeAt(j - 2)] * CLASSES + cls[t.charCodeAt(j - 1)]) * CLASSES + cls[t.charCodeAt(j)];
        this.shift[h] = Math.min(this.shift[h], m - 1 - j);
        if (j === m - 1) this.ends.set(h, [...(this.ends.get(h) ?? []), i]);
      }
    });
  }

  /** The ranges of `t` holding a form, as [start, end, start, end, ...], ordered, overlaps merged; undefined for none. */
  find(t: string): number[] | undefined {
    const { m, cls, shift } = this;
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
        const end = this.matchAt(t, start, i);
        if (end < 0) continue;
        if (hits && start < hits[hits.length - 1]) hits[hits.length - 1] = Math.max(hits[hits.length - 1], end);
        else (hits ??= []).push(start, end);
      }
      pos++;
    }
    return hits;
  }

  /** Where form `i` found at `start` ends (a Base64 core: with the rest of its group), or -1. */
  private matchAt(t: string, start: number, i: number): number {
    const form = this.forms[i];
    if (start + form.length > t.length) return -1;
    for (let k = 0; k < form.length; k++) if (this.f[t.charCodeAt(start + k)] !== form.charCodeAt(k)) return -1;
    let end = start + form.length;
    if (!this.base64[i]) return end;
    for (let k = 0; k < 2 && end < t.length && BASE64_CHAR.test(t[end]); k++) end++;
    for (let k = 0; k < 2; k++) {
      if (t[end] === '=') end++;
      else if (t[end] === '%' && t[end + 1] === '3' && (t[end + 2] === 'D' || t[end + 2] === 'd')) end += 3;
      else break;
    }
    return end;
  }
}
