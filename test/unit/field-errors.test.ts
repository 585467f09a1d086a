// The errors a validate step and the output check report (engine/schemas/field-errors.ts): a
// schema's own `errorMessage` replaces ajv's message for its field, found through the error's
// schema path (ajv is not verbose: its errors carry neither the schema nor the failing value).

import { describe, expect, it } from 'vitest';
import { createAjv } from '../../engine/schemas/schemas.ts';
import { fieldErrors } from '../../engine/schemas/field-errors.ts';

const schema = {
  type: 'object',
  properties: {
    country: { type: 'string', pattern: '^[A-Z]{2}$', errorMessage: 'must be an ISO 3166-1 alpha-2 country code' },
    'a/b~c': { type: 'integer', errorMessage: 'must be a whole number of days' },
    plain: { type: 'string', minLength: 2 },
    items: { type: 'array', items: { $ref: '#/$defs/code' } },
  },
  $defs: { code: { type: 'string', maxLength: 3, errorMessage: 'must be a code of at most 3 letters' } },
};

describe('fieldErrors', () => {
  const validate = createAjv().compile(schema);
  const errors = (body: unknown) => (validate(body) ? [] : fieldErrors(validate.errors, '/body', schema));

  it("says a field's own errorMessage, under keys JSON pointers escape and through a $ref", () => {
    expect(errors({ country: 'gb', 'a/b~c': 1.5, items: ['ok', 'toolong'] })).toEqual([
      { field: '/body/country', message: 'must be an ISO 3166-1 alpha-2 country code' },
      { field: '/body/a~1b~0c', message: 'must be a whole number of days' },
      { field: '/body/items/1', message: 'must be a code of at most 3 letters' },
    ]);
  });

  it("keeps ajv's message where the schema says none, and without the root schema", () => {
    expect(errors({ plain: 'x' })).toEqual([
      { field: '/body/plain', message: 'must NOT have fewer than 2 characters' },
    ]);
    validate({ country: 'gb' });
    expect(fieldErrors(validate.errors)).toEqual([{ field: '/country', message: 'must match pattern "^[A-Z]{2}$"' }]);
  });
});
