// URL templates with `{name}` path parameters, compiled at load. Parameters are filled with
// URL-encoded values only, so no input can change the vendor host or step out of the path.

export interface UrlTemplate {
  names: string[];
  expand(values: Record<string, unknown>): string;
}

/** Encodes one path segment; `.` and `..` are encoded too so they cannot walk up the path. */
export function encodeSegment(v: unknown): string {
  const s = encodeURIComponent(String(v));
  return s === '.' ? '%2E' : s === '..' ? '%2E%2E' : s;
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
          out += encodeSegment(v);
        }
      }
      return out;
    },
  };
}
