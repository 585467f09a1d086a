// JSON Schemas a route uses are strict (engine/schemas/schema-check.ts): each mistake is one
// diagnostic at the place of the fix (the schema file's line and column, the route's for an inline
// schema), in words, and a start with a misspelt `required` is refused, so the request it would
// have let through never reaches the vendor.

import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { lintProject } from '../../engine/engine.ts';
import { DiagnosticError, formatDiagnostic } from '../../engine/core/diagnostics.ts';
import { createLogger } from '../../engine/observability/logger.ts';
import { tmpProject } from '../helpers/tmp-project.ts';
import { postJson, startProject } from '../helpers/project-engine.ts';

const ROUTE = `id: credit-report
values: demo
from:
  http:
    path: /credit-reports
output-schema: schemas/report.schema.json
steps:
  - validate:
      schema: schemas/consent.schema.json
  - to-http:
      name: bureau
      method: GET
      url: "{{bureau.url}}/reports"
`;

// line 7 holds `required`: the cases below misspell and break it and its neighbours
const CONSENT = `{
  "type": "object",
  "properties": {
    "nationalId": { "type": "string", "minLength": 1 },
    "consent": { "type": "boolean", "const": true }
  },
  "required": ["nationalId", "consent"]
}
`;

const REPORT = `{
  "type": "object",
  "properties": { "score": { "type": "integer" } }
}
`;

const files = (o: { route?: string; consent?: string; report?: string; url?: string } = {}) => ({
  'values/demo.values.yaml': `bureau.url: ${o.url ?? 'http://127.0.0.1:9'}\n`,
  'routes/credit-report.yaml': o.route ?? ROUTE,
  'schemas/consent.schema.json': o.consent ?? CONSENT,
  'schemas/report.schema.json': o.report ?? REPORT,
});

async function lint(o: Parameters<typeof files>[0] = {}): Promise<string[]> {
  const root = tmpProject(files(o));
  const diags = await lintProject({ routes: ['routes'], root, logger: createLogger('silent'), processEnv: {} });
  // file names are relative to the working directory: the project's part of them
  return diags.map((d) => formatDiagnostic(d).replace(/[^\s(]*engine-test-[^/]+\//g, ''));
}

const BY_VALIDATE = ' (named by route credit-report at steps[0].validate.schema)';

describe('strict JSON Schemas: lint', () => {
  it('the correct project is clean', async () => {
    expect(await lint()).toEqual([]);
  });

  it.each([
    [
      'a misspelt keyword, at its key, with did-you-mean',
      CONSENT.replace('"required"', '"requird"'),
      `schemas/consent.schema.json:7:3 unknown JSON Schema keyword 'requird'; did you mean 'required'?${BY_VALIDATE}`,
    ],
    [
      'a misspelt keyword in a subschema',
      CONSENT.replace('"minLength"', '"minLenght"'),
      `schemas/consent.schema.json:4:39 unknown JSON Schema keyword 'minLenght'; did you mean 'minLength'?${BY_VALIDATE}`,
    ],
    [
      'an unknown keyword with no near name',
      CONSENT.replace('"const"', '"mustBe"'),
      `schemas/consent.schema.json:5:37 unknown JSON Schema keyword 'mustBe': ajv would ignore it and check nothing${BY_VALIDATE}`,
    ],
    [
      'invalid JSON, at its line and column rather than a position',
      CONSENT.replace('"consent"]\n', '"consent"],\n'),
      `schemas/consent.schema.json:8:1 invalid JSON: Expected double-quoted property name${BY_VALIDATE}`,
    ],
    [
      'a type that is no type names the types',
      CONSENT.replace('"type": "string"', '"type": "strng"'),
      `schemas/consent.schema.json:4:29 'strng' is not a JSON Schema type (array, boolean, integer, null, number, object, string); did you mean 'string'?${BY_VALIDATE}`,
    ],
    [
      'a bad member of a list of types',
      CONSENT.replace('"type": "boolean"', '"type": ["boolean", "nul"]'),
      `schemas/consent.schema.json:5:38 'nul' is not a JSON Schema type (array, boolean, integer, null, number, object, string); did you mean 'null'?${BY_VALIDATE}`,
    ],
    [
      'a value the meta-schema refuses',
      CONSENT.replace('["nationalId", "consent"]', '"consent"'),
      `schemas/consent.schema.json:7:15 'required' must be array (got "consent")${BY_VALIDATE}`,
    ],
    [
      'an unknown format',
      CONSENT.replace('"minLength": 1', '"format": "ibn"'),
      `schemas/consent.schema.json:4:49 unknown format 'ibn'; did you mean 'iban'?${BY_VALIDATE}`,
    ],
  ])('%s', async (_what, consent, expected) => {
    expect(await lint({ consent })).toEqual([expected]);
  });

  it('an output-schema is checked too', async () => {
    expect(await lint({ report: REPORT.replace('"properties"', '"propertys"') })).toEqual([
      "schemas/report.schema.json:3:3 unknown JSON Schema keyword 'propertys'; did you mean 'properties'? (named by route credit-report at output-schema)",
    ]);
  });

  it('an inline schema is said at its line in the route', async () => {
    const route = ROUTE.replace(
      'schema: schemas/consent.schema.json',
      'schema:\n        type: object\n        requird: [consent]',
    );
    expect(await lint({ route })).toEqual([
      "routes/credit-report.yaml:11:9 unknown JSON Schema keyword 'requird'; did you mean 'required'? (at steps[0].validate.schema.requird)",
    ]);
  });

  it("the banking formats and the engine's keywords (x-raw-text, errorMessage) stay valid", async () => {
    const consent = CONSENT.replace(
      '"minLength": 1',
      '"format": "iban", "errorMessage": "must be an IBAN" }, "bic": { "type": "string", "format": "bic", "x-raw-text": true',
    );
    expect(await lint({ consent })).toEqual([]);
  });
});

describe('strict JSON Schemas: start', () => {
  let vendor: Server | undefined;
  afterEach(() => vendor?.close());

  it('a misspelt required refuses the start: a request without consent never reaches the vendor', async () => {
    let calls = 0;
    vendor = createServer((_req, res) => {
      calls++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"score": 700}');
    });
    await new Promise<void>((r) => vendor!.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(vendor.address() as AddressInfo).port}`;
    const withoutConsent = { nationalId: 'AB123' };

    let refused: unknown;
    try {
      const engine = await startProject(files({ url, consent: CONSENT.replace('"required"', '"requird"') }));
      // were the start not refused, this request would reach the vendor
      await postJson(engine, '/credit-reports', withoutConsent).finally(() => engine.close());
    } catch (e) {
      refused = e;
    }
    expect(refused).toBeInstanceOf(DiagnosticError);
    expect((refused as DiagnosticError).message).toMatch(
      /schemas\/consent\.schema\.json:7:3 unknown JSON Schema keyword 'requird'; did you mean 'required'\?/,
    );
    expect(calls).toBe(0);

    // spelt right, the schema refuses that request and lets a consenting one through
    const engine = await startProject(files({ url }));
    try {
      expect((await postJson(engine, '/credit-reports', withoutConsent)).status).toBe(400);
      expect(calls).toBe(0);
      expect((await postJson(engine, '/credit-reports', { ...withoutConsent, consent: true })).status).toBe(200);
      expect(calls).toBe(1);
    } finally {
      await engine.close();
    }
  });
});
