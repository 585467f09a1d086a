// Reads a .cpuprofile (node --cpu-prof) and sums self time per function and per file, as
// microseconds per request of a load that made `requests` requests while the profile ran, or
// within `window` (µs of the monotonic clock: process.hrtime and the profile's timestamps agree),
// which leaves start-up, warm-up and shutdown out.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface ProfileSummary {
  functions: [string, number][];
  files: [string, number][];
  totalUs: number;
  idleUs: number;
  programUs: number;
}

/**
 * Module boundaries of a bundled file of dist/: esbuild writes `// engine/pipeline/route.ts` (or `//
 * node_modules/...`) above each module's code.
 */
const boundaries = new Map<string, [number, string][]>();

/** The source module of a line of the build (npm run build bundles): profiles read per module, as before the bundle. */
function sourceOf(url: string, line: number): string {
  if (!/^file:\/\/.*\/dist\/.*\.c?js$/.test(url)) return url;
  let marks = boundaries.get(url);
  if (!marks) {
    marks = [];
    readFileSync(fileURLToPath(url), 'utf8')
      .split('\n')
      .forEach((l, i) => {
        const m = /^\/\/ ((?:node_modules|engine|sandbox|packages)\/\S+)$/.exec(l);
        if (m) marks!.push([i, m[1].startsWith('node_modules/') ? `/${m[1]}` : m[1]]);
      });
    boundaries.set(url, marks);
  }
  let found = url;
  for (const [at, path] of marks) {
    if (at > line) break;
    found = path;
  }
  return found;
}

export function summarize(file: string, requests: number, window?: { from: number; to: number }): ProfileSummary {
  const prof = JSON.parse(readFileSync(file, 'utf8'));
  const dt = new Map<number, number>();
  let at = prof.startTime;
  prof.samples.forEach((id: number, i: number) => {
    const d = prof.timeDeltas[i] ?? 0;
    at += d;
    if (!window || (at >= window.from && at <= window.to)) dt.set(id, (dt.get(id) ?? 0) + d);
  });
  const fns = new Map<string, number>();
  const files = new Map<string, number>();
  let total = 0;
  let idle = 0;
  let program = 0;
  for (const n of prof.nodes) {
    const t = dt.get(n.id) ?? 0;
    const cf = n.callFrame;
    // (program): native work outside any JavaScript function (the event loop, node's C++ callbacks)
    if (cf.functionName === '(idle)') {
      idle += t;
      continue;
    }
    if (cf.functionName === '(program)') {
      program += t;
      continue;
    }
    total += t;
    const where =
      sourceOf(cf.url, cf.lineNumber)
        .replace(/^.*\/node_modules\//, '')
        .replace(/^file:\/\/.*\/(dist\/|)(engine|sandbox|packages)\//, '$2/') || '(native)';
    const k = `${cf.functionName || '(anon)'} ${where}:${cf.lineNumber + 1}`;
    fns.set(k, (fns.get(k) ?? 0) + t);
    const f = where.startsWith('node:')
      ? 'node internals'
      : where.includes('/') && !where.startsWith('engine/') && !where.startsWith('sandbox/')
        ? where.split('/')[0]
        : where;
    files.set(f, (files.get(f) ?? 0) + t);
  }
  const per = (m: Map<string, number>) =>
    [...m].map(([k, t]) => [k, t / requests] as [string, number]).sort((a, b) => b[1] - a[1]);
  return {
    functions: per(fns),
    files: per(files),
    totalUs: total / requests,
    idleUs: idle / requests,
    programUs: program / requests,
  };
}
