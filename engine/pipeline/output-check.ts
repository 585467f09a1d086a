// The output check: a route's successful answer is checked against its `output-schema` before it
// leaves (HTTP answer, tool result, to-direct result). A vendor's 200 that does not map (`{}`, a
// rate of "NaN") is then the vendor's failure, 502 GC027, not a success that breaks the answer's
// contract (an MCP client validating structuredContent throws on it). The validator is the one
// compiled at load; the log line carries the vendor's text as received, masked and bounded.

import type { ValidateFunction } from 'ajv';
import { PlatformError } from '../core/errors.ts';
import { CODE, ERROR_CATALOG } from '../core/error-catalog.ts';
import type { Exchange } from './exchange.ts';
import { fieldErrors } from '../schemas/field-errors.ts';

/** Errors named in the problem detail and the log line; the rest are counted. */
const SHOWN_ERRORS = 5;

/** Checks the answer of an exchange that succeeded; the error it gives is the exchange's answer. */
export type OutputCheck = (ex: Exchange) => PlatformError | undefined;

export function compileOutputCheck(validate: ValidateFunction, schemaFile: string, schema?: unknown): OutputCheck {
  return (ex) => {
    // a success is an answer of the schema, bodiless or not; a 204 (no content) or an error status a step set is not
    if (ex.status < 200 || ex.status > 299 || ex.status === 204 || validate(ex.body)) return undefined;
    const errors = fieldErrors(validate.errors, '', schema);
    const shown =
      errors
        .slice(0, SHOWN_ERRORS)
        .map((e) => `${e.field} ${e.message}`)
        .join('; ') + (errors.length > SHOWN_ERRORS ? `; and ${errors.length - SHOWN_ERRORS} more` : '');
    const vendor = ex.vendorAnswer;
    const err = new PlatformError({
      kind: 'vendor',
      status: 502,
      // the code and title of a vendor outage (the error templates' 502: unreachable, answering 5xx)
      code: CODE.generic,
      title: ERROR_CATALOG[CODE.generic].title,
      vendorStatus: vendor?.status,
      // the caller learns which fields of its answer are missing or wrong, never the vendor's text
      detail: `${vendor ? `the answer of ${vendor.target} (${vendor.status})` : 'the answer'} does not match the route's output schema: ${shown}`,
    });
    ex.log.error(
      {
        kind: err.kind,
        status: err.status,
        code: err.code,
        outputSchema: schemaFile,
        outputErrors: errors.slice(0, SHOWN_ERRORS),
        ...(vendor ? { vendor: vendor.target, vendorStatus: vendor.status, vendorText: vendor.maskedText() } : {}),
      },
      'exchange failed: the answer does not match the output schema',
    );
    return err;
  };
}
