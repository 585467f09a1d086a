// The table of platform codes in docs/errors.md (between markers), rendered from the error catalog
// and from what the loaded routes' on-exception handlers answer, so the page cannot drift from the
// engine or the connectors (test/docs/errors-doc.test.ts). `engine errors --docs docs/errors.md` writes it.

import { resolve, relative, sep } from 'node:path';
import { CATALOG_ENTRIES, ERROR_CATALOG, type PlatformCode } from '../core/error-catalog.ts';
import type { CompiledRoute } from '../pipeline/route.ts';

export const BEGIN = '<!-- BEGIN GENERATED ERROR CODES (engine errors --docs docs/errors.md) -->';
export const END = '<!-- END GENERATED ERROR CODES -->';

/**
 * Per platform code, the connectors whose error mapping (on-exception: its templates and problems)
 * answers it. A connector is the folder of its routes under one of `dirs`.
 */
export function codesByConnector(routes: CompiledRoute[], dirs: string[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const roots = dirs.map((d) => resolve(d));
  for (const r of routes) {
    const file = resolve(r.file);
    const root = roots.find((d) => file.startsWith(d + sep));
    const parts = root ? relative(root, file).split(sep) : [];
    const connector = parts.length > 1 ? parts[0] : r.id;
    const codes = r.handlers.flatMap((h) => [
      ...(h.template?.codes ?? []),
      ...(h.problem?.code ? [h.problem.code] : []),
    ]);
    for (const c of codes) {
      if (!out.has(c)) out.set(c, new Set());
      out.get(c)!.add(connector);
    }
  }
  return out;
}

const cell = (s: string) => s.replaceAll('|', '\\|');

/** The generated part of docs/errors.md, markers included. */
export function renderErrorTable(connectors: Map<string, Set<string>>): string {
  const rows = (Object.keys(ERROR_CATALOG) as PlatformCode[]).map((code) => {
    const e = CATALOG_ENTRIES[code];
    const title = e.otherTitles?.length ? `${e.title} (also: ${e.otherTitles.join(', ')})` : e.title;
    const by = [...(connectors.get(code) ?? [])]
      .sort()
      .map((c) => `\`${c}\``)
      .join(', ');
    const engine = cell((e.engine ?? []).join('; ')) || '-';
    return (
      `| \`${code}\` | ${cell(title)} | ${e.statuses.join(', ')} | ${cell(e.cause)} | ${cell(e.action)} ` +
      `| ${engine} | ${by || '-'} |`
    );
  });
  return [
    BEGIN,
    '',
    '| Code | Title | Status | Meaning | What the caller does | Answered by the engine ' +
      '| Connectors mapping vendor errors to it |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
    END,
  ].join('\n');
}

/** `text` (docs/errors.md) with its generated part replaced, or appended when it has none. */
export function updateErrorsDoc(text: string, table: string): string {
  const a = text.indexOf(BEGIN);
  const b = text.indexOf(END);
  if (a < 0 || b < 0) return `${text.trimEnd()}\n\n${table}\n`;
  return text.slice(0, a) + table + text.slice(b + END.length);
}
