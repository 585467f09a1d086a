// The validator cache keeps compiled code, never the verdict of the engine's checks: a schema whose
// code a former process kept is still checked (schema-check.ts) on every start, so a check a later
// engine adds holds for a schema that did not change. Here a check that appears between two
// "processes" (a mocked schemaProblems) must stop the kept schema.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const extraCheck = vi.hoisted(() => ({ on: false }));
vi.mock('../../engine/schemas/schema-check.ts', async (original) => {
  const m = await original<typeof import('../../engine/schemas/schema-check.ts')>();
  return {
    ...m,
    schemaProblems: (...a: Parameters<typeof m.schemaProblems>) => [
      ...m.schemaProblems(...a),
      ...(extraCheck.on ? [{ path: ['properties'], message: 'a check this engine adds' }] : []),
    ],
  };
});

const { setCacheFolder } = await import('../../engine/core/disk-cache.ts');
const { SchemaStore, SchemaProblemsError } = await import('../../engine/schemas/schemas.ts');
const { writeValidatorCache } = await import('../../engine/schemas/validator-cache.ts');

const dirs: string[] = [];
afterEach(() => {
  setCacheFolder(undefined);
  extraCheck.on = false;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const SCHEMA = { type: 'object', properties: { a: { type: 'string', maxLength: 3 } }, required: ['a'] };

describe("the validator cache and the engine's checks", () => {
  it('checks a schema served from kept code, file or inline, as it checks one it compiles', () => {
    const dir = mkdtempSync(join(tmpdir(), 'validator-checks-'));
    dirs.push(dir);
    const cache = join(dir, 'cache');
    const file = join(dir, 'a.schema.json');
    writeFileSync(file, JSON.stringify(SCHEMA));
    setCacheFolder(cache);
    const first = new SchemaStore();
    expect(first.compileFile(file).validate({ a: 'abcd' })).toBe(false);
    first.compileInline({ ...SCHEMA });
    writeValidatorCache();
    // a later process, whose engine checks more
    setCacheFolder(cache);
    extraCheck.on = true;
    const later = new SchemaStore();
    expect(() => later.compileFile(file)).toThrow(/a check this engine adds/);
    expect(() => later.compileInline({ ...SCHEMA })).toThrow(SchemaProblemsError);
    // and without that check, the kept code serves it
    extraCheck.on = false;
    const again = new SchemaStore();
    expect(again.compileFile(file).validate({ a: 'abc' })).toBe(true);
  });
});
