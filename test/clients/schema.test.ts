// The editor schema of clients files: committed as generated, and every shipped clients file
// (placeholders unresolved, as an editor sees it) validates against it.
import { describe, it, expect } from 'vitest';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { createAjv } from '../../engine/schemas/schemas.ts';
import { clientsJsonSchema } from '../../engine/dsl/clients.ts';

describe('schemas/clients.schema.json', () => {
  const committed = JSON.parse(readFileSync('schemas/clients.schema.json', 'utf8'));

  it('is the generated schema (engine clients schema)', () => {
    expect(committed).toEqual(clientsJsonSchema());
  });

  it('accepts every shipped clients file and refuses a word where a number belongs', () => {
    const validate = createAjv().compile(committed);
    const files = readdirSync('routes')
      .map((d) => join('routes', d, 'connector.yaml'))
      .filter((f) => existsSync(f));
    expect(files.length).toBeGreaterThanOrEqual(6);
    for (const f of files) expect(validate(parse(readFileSync(f, 'utf8'))) ? [] : validate.errors, f).toEqual([]);
    expect(validate(parse('clients:\n  x:\n    base-url: http://h\n    timeouts: { connect: fast }\n'))).toBe(false);
  });
});
