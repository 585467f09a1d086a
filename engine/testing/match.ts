// Comparing what a route did with what a test expects: exact or subset, as a list of mismatches
// that each name the path where they differ, so the report points at the expectation's line.

export type Path = (string | number)[];

export interface Mismatch {
  /** path inside the expected value */
  path: Path;
  expected: unknown;
  actual: unknown;
  /** absent on the actual side (or, exact mode, present only there) */
  note?: 'missing' | 'unexpected';
}

const MAX = 20;

function isObject(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

/**
 * Mismatches of `actual` against `expected`. `subset`: only the keys given count (a `null`
 * expects null or absent); arrays then match item by item with the same length.
 */
export function compare(
  expected: unknown,
  actual: unknown,
  subset: boolean,
  path: Path = [],
  out: Mismatch[] = [],
): Mismatch[] {
  if (out.length >= MAX) return out;
  if (subset && expected === null && (actual === null || actual === undefined)) return out;
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) {
      out.push({ path, expected, actual });
      return out;
    }
    const n = Math.max(expected.length, actual.length);
    for (let i = 0; i < n && out.length < MAX; i++) {
      if (i >= expected.length)
        out.push({ path: [...path, i], expected: undefined, actual: actual[i], note: 'unexpected' });
      else if (i >= actual.length)
        out.push({ path: [...path, i], expected: expected[i], actual: undefined, note: 'missing' });
      else compare(expected[i], actual[i], subset, [...path, i], out);
    }
    return out;
  }
  if (isObject(expected)) {
    if (!isObject(actual)) {
      out.push({ path, expected, actual });
      return out;
    }
    for (const k of Object.keys(expected)) {
      if (!(k in actual) && !(subset && expected[k] === null))
        out.push({ path: [...path, k], expected: expected[k], actual: undefined, note: 'missing' });
      else compare(expected[k], actual[k], subset, [...path, k], out);
    }
    if (!subset)
      for (const k of Object.keys(actual))
        if (!(k in expected))
          out.push({ path: [...path, k], expected: undefined, actual: actual[k], note: 'unexpected' });
    return out;
  }
  if (!Object.is(expected, actual) && !(expected === 0 && actual === 0)) out.push({ path, expected, actual });
  return out;
}

function show(v: unknown): string {
  if (v === undefined) return '(absent)';
  const s = JSON.stringify(v);
  return s.length > 200 ? `${s.slice(0, 197)}...` : s;
}

function showPath(p: Path): string {
  let s = '';
  for (const x of p) s += typeof x === 'number' ? `[${x}]` : s ? `.${x}` : x;
  return s || '(root)';
}

/** A readable diff: one line per mismatch, `-` expected, `+` actual. */
export function diffLines(what: string, ms: Mismatch[]): string[] {
  const out: string[] = [];
  for (const m of ms) {
    const at = showPath([what, ...m.path]);
    if (m.note === 'missing') out.push(`${at}: missing`, `  - ${show(m.expected)}`);
    else if (m.note === 'unexpected') out.push(`${at}: not expected`, `  + ${show(m.actual)}`);
    else out.push(`${at}:`, `  - ${show(m.expected)}`, `  + ${show(m.actual)}`);
  }
  if (ms.length >= MAX) out.push(`(first ${MAX} differences shown)`);
  return out;
}
