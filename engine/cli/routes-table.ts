// `engine routes`: a table of the loaded routes (route-explain.ts: `--explain ID`, one route's inheritance).

import { formatDiagnostic } from '../core/diagnostics.ts';
import { loadForListing, type EngineOptions } from '../engine.ts';

export async function listRoutes(opts: EngineOptions): Promise<string> {
  const { routes, diagnostics } = await loadForListing(opts);
  const rows = routes.map((r) => {
    const c = r.source.config as { method?: string; path?: string; schedule?: string; queue?: string };
    const trigger =
      r.source.kind === 'http'
        ? `${c.method ?? 'POST'} ${c.path}`
        : r.source.kind === 'cron'
          ? `cron ${c.schedule}`
          : r.source.kind;
    return [r.id, trigger, r.connector ?? '', r.valuesName ?? '', r.file];
  });
  const head = ['ROUTE', 'SOURCE', 'CONNECTOR', 'VALUES', 'FILE'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => c.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  let out = [line(head), ...rows.map(line)].join('\n') + '\n';
  if (diagnostics.length)
    out += `\n${diagnostics.length} problem(s):\n` + diagnostics.map(formatDiagnostic).join('\n') + '\n';
  return out;
}
