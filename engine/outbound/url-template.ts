// URL templates with `{name}` path parameters, compiled at load. Parameters are filled with
// URL-encoded values only, so no input can change the vendor host or step out of the path.

export interface UrlTemplate {
  names: string[];
  expand(values: Record<string, unknown>): string;
}

/**
 * Encodes one path segment. A `.` or `..` value is refused, not encoded: WHATWG URL parsing and
 * servers that normalize paths (RFC 3986 6.2.2.2) read `%2E%2E` as `..` and would walk up the path.
 */
export function encodeSegment(v: unknown, name = 'value'): string {
  const s = encodeURIComponent(String(v));
  if (s === '.' || s === '..') throw new Error(`path parameter '${name}' must not be '${s}'`);
  return s;
}

export function compileUrlTemplate(url: string): UrlTemplate {
  const parts: (string | { name: string })[] = [];
  const names: string[] = [];
  const re = /\{([A-Za-z_][A-Za-z0-9_.-]*)\}/g;
  let last = 0;
  for (let m = re.exec(url); m; m = re.exec(url)) {
    parts.push(url.slice(last, m.index));
    parts.push({ name: m[1] });
    names.push(m[1]);
    last = m.index + m[0].length;
  }
  parts.push(url.slice(last));
  if (!names.length) return { names, expand: () => url };
  return {
    names,
    expand(values) {
      let out = '';
      for (const p of parts) {
        if (typeof p === 'string') out += p;
        else {
          const v = values[p.name];
          if (v === undefined || v === null || v === '') throw new Error(`path parameter '${p.name}' has no value`);
          out += encodeSegment(v, p.name);
        }
      }
      return out;
    },
  };
}
