// Path-pattern router. Patterns such as `/v1/rates/{buy}/{sell}` are split into segments once, at
// registration; a request only splits its path and compares segments within the bucket of routes
// with the same method and segment count, so matching stays cheap with a dozen routes.

export type Params = Record<string, string>;

type Segment = { literal: string } | { param: string };

interface CompiledRoute<H> {
  pattern: string;
  segments: Segment[];
  paramCount: number;
  handler: H;
}

export type RouteMatch<H> =
  | { kind: 'found'; handler: H; params: Params }
  | { kind: 'method-not-allowed'; allow: string[] }
  | { kind: 'not-found' };

/** Thrown when a path parameter is not valid percent-encoding. */
export class BadPathError extends Error {}

const PARAM = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

function compile(pattern: string): { segments: Segment[]; paramCount: number } {
  if (!pattern.startsWith('/')) throw new Error(`route pattern must start with '/': ${pattern}`);
  let paramCount = 0;
  const segments = pattern.split('/').map((s): Segment => {
    const m = PARAM.exec(s);
    if (m) {
      paramCount++;
      return { param: m[1]! };
    }
    if (s.includes('{') || s.includes('}')) throw new Error(`a path parameter must fill a whole segment: ${pattern}`);
    return { literal: s };
  });
  return { segments, paramCount };
}

export class Router<H> {
  // key: `${METHOD} ${segmentCount}`
  private readonly buckets = new Map<string, CompiledRoute<H>[]>();
  private readonly methods = new Set<string>();

  add(method: string, pattern: string, handler: H): void {
    const m = method.toUpperCase();
    const { segments, paramCount } = compile(pattern);
    const key = `${m} ${segments.length}`;
    const bucket = this.buckets.get(key) ?? [];
    bucket.push({ pattern, segments, paramCount, handler });
    // literal segments win over parameters: fewest parameters first
    bucket.sort((a, b) => a.paramCount - b.paramCount);
    this.buckets.set(key, bucket);
    this.methods.add(m);
  }

  match(method: string, path: string): RouteMatch<H> {
    const parts = path.split('/');
    const found = this.matchIn(method, parts);
    if (found) return found;
    // Only on a miss: is the path served under another method?
    const allow: string[] = [];
    for (const m of this.methods) if (m !== method && this.matchIn(m, parts)) allow.push(m);
    return allow.length > 0 ? { kind: 'method-not-allowed', allow } : { kind: 'not-found' };
  }

  private matchIn(method: string, parts: string[]): { kind: 'found'; handler: H; params: Params } | undefined {
    const bucket = this.buckets.get(`${method} ${parts.length}`);
    if (!bucket) return undefined;
    outer: for (const route of bucket) {
      const params: Params = {};
      for (let i = 0; i < parts.length; i++) {
        const seg = route.segments[i]!;
        const part = parts[i]!;
        if ('literal' in seg) {
          if (seg.literal !== part) continue outer;
        } else {
          if (part === '') continue outer;
          params[seg.param] = decode(part);
        }
      }
      return { kind: 'found', handler: route.handler, params };
    }
    return undefined;
  }
}

function decode(part: string): string {
  if (!part.includes('%')) return part;
  try {
    return decodeURIComponent(part);
  } catch {
    throw new BadPathError(`invalid percent-encoding in path segment '${part}'`);
  }
}
