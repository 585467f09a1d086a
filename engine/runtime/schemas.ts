// One Ajv (JSON Schema 2020-12, ajv-formats, banking formats) shared by all routes; schema files
// compiled once and cached by path.

import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { abaValid, bicValid, currencyValid, ibanValid, amountValid, notPast } from './functions.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

export function createAjv(): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, strict: false, useDefaults: false, coerceTypes: false });
  addFormats(ajv);
  ajv.addFormat('iso4217', { type: 'string', validate: currencyValid });
  ajv.addFormat('iban', { type: 'string', validate: ibanValid });
  ajv.addFormat('bic', { type: 'string', validate: bicValid });
  ajv.addFormat('aba-routing', { type: 'string', validate: abaValid });
  ajv.addFormat('decimal-amount', { type: 'string', validate: (s: string) => amountValid(s) });
  ajv.addFormat('not-past-date', { type: 'string', validate: notPast });
  return ajv;
}

export class SchemaStore {
  readonly ajv = createAjv();
  private byFile = new Map<string, { validate: ValidateFunction; schema: Record<string, unknown> }>();

  compileFile(file: string): { validate: ValidateFunction; schema: Record<string, unknown> } {
    let c = this.byFile.get(file);
    if (!c) {
      const schema = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
      // $id lets schemas $ref each other; the file path is the fallback id.
      const validate = schema.$id && this.ajv.getSchema(String(schema.$id)) ? this.ajv.getSchema(String(schema.$id))! : this.ajv.compile(schema);
      c = { validate, schema };
      this.byFile.set(file, c);
    }
    return c;
  }

  compileInline(schema: Record<string, unknown>): { validate: ValidateFunction; schema: Record<string, unknown> } {
    return { validate: this.ajv.compile(schema), schema };
  }
}
