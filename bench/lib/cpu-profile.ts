// Reads a .cpuprofile (node --cpu-prof) and sums self time per function and per file, as
// microseconds per request of a load that made `requests` requests while the profile ran.
import { readFileSync } from 'node:fs';

export interface ProfileSummary { functions: [string, number][]; files: [string, number][]; totalUs: number; idleUs: number }

export function summarize(file: string, requests: number): ProfileSummary {
  const prof = JSON.parse(readFileSync(file, 'utf8'));
  const dt = new Map<number, number>();
  prof.samples.forEach((id: number, i: number) => dt.set(id, (dt.get(id) ?? 0) + (prof.timeDeltas[i] ?? 0)));
  const fns = new Map<string, number>();
  const files = new Map<string, number>();
  let total = 0;
  let idle = 0;
  for (const n of prof.nodes) {
    const t = dt.get(n.id) ?? 0;
    const cf = n.callFrame;
    if (cf.functionName === '(idle)' || cf.functionName === '(program)') { idle += t; continue; }
    total += t;
    const where = cf.url.replace(/^.*\/node_modules\//, '').replace(/^file:\/\/.*\/(dist\/|)(engine|sandbox)\//, '$2/') || '(native)';
    const k = `${cf.functionName || '(anon)'} ${where}:${cf.lineNumber + 1}`;
    fns.set(k, (fns.get(k) ?? 0) + t);
    const f = where.startsWith('node:') ? 'node internals' : where.includes('/') && !where.startsWith('engine/') && !where.startsWith('sandbox/') ? where.split('/')[0] : where;
    files.set(f, (files.get(f) ?? 0) + t);
  }
  const per = (m: Map<string, number>) => [...m].map(([k, t]) => [k, t / requests] as [string, number]).sort((a, b) => b[1] - a[1]);
  return { functions: per(fns), files: per(files), totalUs: total / requests, idleUs: idle / requests };
}
