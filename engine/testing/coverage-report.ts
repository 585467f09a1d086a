// The coverage report of `engine test --coverage`: per route, how many of its steps, `choice`
// branches and on-exception handlers the cases reached, and where each one not reached is written
// (file:line), as a text table or JSON for CI.

import { parseYamlFile, locate, formatPath, type YamlSource } from '../core/yaml-source.ts';
import type { CoveragePoint, PointKind } from '../pipeline/coverage.ts';

interface Count {
  reached: number;
  total: number;
}

export interface RouteCoverage {
  route: string;
  file: string;
  steps: Count;
  branches: Count;
  handlers: Count;
  /** reached of all the route's points, in percent (100 for a route with none) */
  percent: number;
  missed: { kind: PointKind; file: string; line: number; path: string; label: string }[];
}

export interface CoverageReport {
  routes: RouteCoverage[];
  reached: number;
  total: number;
  percent: number;
}

const KINDS: Record<PointKind, 'steps' | 'branches' | 'handlers'> = {
  step: 'steps',
  branch: 'branches',
  handler: 'handlers',
};

/** One decimal; 100 only when everything was reached, 0 only when nothing was. */
function percent(reached: number, total: number): number {
  if (reached === total) return 100;
  if (!reached) return 0;
  return Math.min(99.9, Math.max(0.1, Math.round((reached / total) * 1000) / 10));
}

/** The value at `path` of a parsed file (undefined where there is none). */
function at(value: unknown, path: (string | number)[]): unknown {
  let v = value;
  for (const k of path) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined;
  return v;
}

const short = (s: string) => (s.length > 60 ? `${s.slice(0, 57)}...` : s);

/**
 * Where a point is written and what it says there, as written (placeholders unresolved): a `when`
 * shows its condition, a step what it calls (`to-http quote-vendor`).
 */
function reader(): (p: CoveragePoint) => { line: number; label: string } {
  const files = new Map<string, YamlSource | undefined>();
  return (p) => {
    if (!files.has(p.file)) {
      try {
        files.set(p.file, parseYamlFile(p.file));
      } catch {
        files.set(p.file, undefined);
      }
    }
    // a file that no longer parses (edited since) gives line 1
    const src = files.get(p.file);
    if (!src) return { line: 1, label: p.label };
    let label = p.label;
    if (p.kind === 'branch' && p.label === 'when') {
      const v = at(src.value, [...p.path, 'condition']);
      if (typeof v === 'string') label = `when ${short(v)}`;
    } else if (p.kind === 'step') {
      const cfg = at(src.value, [...p.path, p.label]);
      const name = ['name', 'client', 'route'].map((k) => at(cfg, [k])).find((v) => typeof v === 'string');
      if (name) label = `${p.label} ${short(name as string)}`;
    }
    return { line: locate(src, p.path).line, label };
  };
}

export function coverageReport(points: CoveragePoint[]): CoverageReport {
  const read = reader();
  const byRoute = new Map<string, CoveragePoint[]>();
  for (const p of points) {
    const list = byRoute.get(p.route) ?? [];
    list.push(p);
    byRoute.set(p.route, list);
  }
  const routes: RouteCoverage[] = [];
  for (const [route, list] of byRoute) {
    const r: RouteCoverage = {
      route,
      // the route's own file: its steps' (a connector document only lends handlers)
      file: (list.find((p) => p.kind !== 'handler') ?? list[0]).file,
      steps: { reached: 0, total: 0 },
      branches: { reached: 0, total: 0 },
      handlers: { reached: 0, total: 0 },
      percent: 0,
      missed: [],
    };
    for (const p of list) {
      const c = r[KINDS[p.kind]];
      c.total++;
      if (p.hits) c.reached++;
      else r.missed.push({ kind: p.kind, file: p.file, path: formatPath(p.path), ...read(p) });
    }
    r.missed.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.path.length - b.path.length);
    r.percent = percent(list.filter((p) => p.hits).length, list.length);
    routes.push(r);
  }
  routes.sort((a, b) => a.file.localeCompare(b.file) || a.route.localeCompare(b.route));
  const reached = points.filter((p) => p.hits).length;
  return { routes, reached, total: points.length, percent: percent(reached, points.length) };
}

const cell = (c: Count) => (c.total ? `${c.reached}/${c.total}` : '-');

/** A table, a route a line, then what was not reached, each at its file:line. */
export function coverageText(r: CoverageReport): string {
  if (!r.routes.length) return 'coverage: no route was loaded';
  const width = Math.max(5, ...r.routes.map((x) => x.route.length));
  const row = (name: string, steps: string, branches: string, handlers: string, pct: string) =>
    `${name.padEnd(width)}  ${steps.padStart(7)}  ${branches.padStart(8)}  ${handlers.padStart(8)}  ${pct.padStart(6)}`.trimEnd();
  const lines = [
    'coverage: the steps, choice branches and on-exception handlers the cases reached',
    row('route', 'steps', 'branches', 'handlers', ''),
  ];
  const sum = (k: 'steps' | 'branches' | 'handlers') =>
    r.routes.reduce((c, x) => ({ reached: c.reached + x[k].reached, total: c.total + x[k].total }), {
      reached: 0,
      total: 0,
    });
  for (const x of r.routes)
    lines.push(row(x.route, cell(x.steps), cell(x.branches), cell(x.handlers), `${x.percent}%`));
  lines.push(row('total', cell(sum('steps')), cell(sum('branches')), cell(sum('handlers')), `${r.percent}%`));
  const missed = r.routes.flatMap((x) => x.missed.map((m) => ({ ...m, route: x.route })));
  if (missed.length) {
    lines.push(`not reached (${missed.length}):`);
    for (const m of missed) lines.push(`  ${m.file}:${m.line} ${m.route} ${m.path} (${m.label})`);
  }
  return lines.join('\n');
}
