// One error catalog: docs/errors.md's table is what the catalog and the shipped error mappings say
// today (npm run schema), every code, status and title a shipped error template answers is the
// catalog's, and the engine names its codes through the catalog, never as literals.

import { describe, it, expect } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { errorTable } from '../../engine/cli/errors-command.ts';
import { BEGIN, END, renderErrorTable } from '../../engine/dsl/error-reference.ts';
import { CATALOG_ENTRIES, CODE, ERROR_CATALOG, isPlatformCode } from '../../engine/core/error-catalog.ts';
import type { TemplateFile } from '../../engine/pipeline/error-templates.ts';
import { ROOT } from './schema-files.ts';

function files(dir: string, test: (name: string) => boolean): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name);
    return d.isDirectory() ? files(p, test) : test(d.name) ? [p] : [];
  });
}

/** The shipped error templates: JSON files under transforms/ with `rules`. */
const templates = files(join(ROOT, 'transforms'), (n) => n.endsWith('.json'))
  .map((f) => ({ file: relative(ROOT, f), t: JSON.parse(readFileSync(f, 'utf8')) as TemplateFile }))
  .filter(({ t }) => Array.isArray(t.rules));

describe('docs/errors.md', () => {
  const doc = readFileSync(join(ROOT, 'docs', 'errors.md'), 'utf8');

  it('holds the table generated from the catalog and the shipped routes of today (npm run schema)', async () => {
    const generated = doc.slice(doc.indexOf(BEGIN), doc.indexOf(END) + END.length);
    expect(generated).toBe(await errorTable(['routes'], ROOT));
  }, 60_000);

  it('has a row per catalog code with its title and statuses, and names the connectors that map to it', () => {
    for (const [code, e] of Object.entries(CATALOG_ENTRIES)) {
      expect(doc).toContain(`| \`${code}\` | ${e.title}`);
      expect(doc).toMatch(new RegExp(`\\| \`${code}\` \\|[^\\n]*\\| ${e.statuses.join(', ')} \\|`));
    }
    const row = renderErrorTable(new Map([[CODE.notFound, new Set(['b-connector', 'a-connector'])]]))
      .split('\n')
      .find((l) => l.startsWith(`| \`${CODE.notFound}\``));
    expect(row).toMatch(/\| `a-connector`, `b-connector` \|$/);
  });
});

describe('the error catalog', () => {
  it('has every code, status and title the shipped error templates answer', () => {
    expect(templates.length).toBeGreaterThanOrEqual(4);
    const wrong: string[] = [];
    for (const { file, t } of templates) {
      for (const [where, p] of [
        ...t.rules.map((r, i) => [`rules[${i}]`, r] as const),
        ['default', t.default] as const,
      ]) {
        if (!p?.code) continue;
        if (!isPlatformCode(p.code)) {
          wrong.push(`${file} ${where}: ${p.code}`);
          continue;
        }
        const e = CATALOG_ENTRIES[p.code];
        if (p.status !== undefined && !e.statuses.includes(p.status))
          wrong.push(`${file} ${where}: ${p.code} answered ${p.status}`);
        if (p.title !== undefined && ![e.title, ...(e.otherTitles ?? [])].includes(p.title))
          wrong.push(`${file} ${where}: ${p.code} titled ${p.title}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('names each code the engine answers by meaning', () => {
    for (const code of Object.values(CODE)) expect(Object.keys(ERROR_CATALOG)).toContain(code);
  });

  it('is where engine/ takes its codes from: no other file spells one as a string', () => {
    const literal = /['"`]GC\d+['"`]/;
    const offending = files(join(ROOT, 'engine'), (n) => n.endsWith('.ts'))
      .filter((f) => !f.endsWith(join('core', 'error-catalog.ts')))
      // a comment may show an example (the format of an error template)
      .flatMap((f) =>
        readFileSync(f, 'utf8')
          .split('\n')
          .flatMap((line, i) =>
            literal.test(line) && !/^\s*(\/\/|\*)/.test(line) ? [`${relative(ROOT, f)}:${i + 1}: ${line.trim()}`] : [],
          ),
      );
    expect(offending).toEqual([]);
  });
});
