// JSON text of a value, written only as far as it will be kept: the console keeps the first
// `bodyLimit` characters of each body, and JSON.stringify of a 1.3 MB batch, eight times per
// exchange, cost more than validating it. The text is exactly JSON.stringify(value, replacer)'s, cut
// once it passes `max` characters; `replacer` is called as JSON.stringify calls it, for members
// and items whose value is not an object (what the masking replacer needs).

type Replacer = (key: string, value: unknown) => unknown;

/** JSON.stringify(v, replacer), or its first `max` characters and a little more; undefined as JSON.stringify. */
export function boundedJson(v: unknown, max: number, replacer: Replacer): string | undefined {
  const out = { s: '' };
  if (!write(out, '', v, max, replacer, true)) return undefined;
  return out.s;
}

/** Appends the JSON of `v` (member `key`); false when it has none (undefined, a function, a symbol). */
function write(out: { s: string }, key: string, v: unknown, max: number, replacer: Replacer, top = false): boolean {
  if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function')
    v = (v as { toJSON: (k: string) => unknown }).toJSON(key);
  if (!top && (v === null || typeof v !== 'object')) v = replacer(key, v);
  if (v === undefined || typeof v === 'function' || typeof v === 'symbol') return false;
  if (v === null || typeof v !== 'object') {
    out.s += JSON.stringify(v);
    return true;
  }
  if (v instanceof Number || v instanceof String || v instanceof Boolean) {
    out.s += JSON.stringify(v);
    return true;
  }
  if (Array.isArray(v)) {
    out.s += '[';
    for (let i = 0; i < v.length; i++) {
      if (i) out.s += ',';
      if (!write(out, String(i), v[i], max, replacer)) out.s += 'null';
      if (out.s.length > max) return true;
    }
    out.s += ']';
    return true;
  }
  out.s += '{';
  let first = true;
  for (const k of Object.keys(v)) {
    const at = out.s.length;
    out.s += `${first ? '' : ','}${JSON.stringify(k)}:`;
    if (!write(out, k, (v as Record<string, unknown>)[k], max, replacer)) {
      out.s = out.s.slice(0, at);
      continue;
    }
    first = false;
    if (out.s.length > max) return true;
  }
  out.s += '}';
  return true;
}
