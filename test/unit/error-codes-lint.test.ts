// A platform code that is not in the error catalog (engine/core/error-catalog.ts) is a lint
// error at its place: in a step (validate, fail, verify-signature), an on-exception problem, and in
// an error template (at its line in the JSON file), with the code probably meant.

import { describe, it, expect } from 'vitest';
import { lintFiles } from '../helpers/lint-files.ts';
import { unknownCode } from '../../engine/core/error-catalog.ts';

const VALUES = { 'values/demo-v1.values.yaml': 'errorTemplate: vendor-errors.json\n' };

const ROUTE = `id: demo
values: demo-v1
from:
  http: { path: /demo }
steps:
  - validate:
      schema: { type: object }
      code: GC025
  - fail:
      when: "body.x = 1"
      code: GC025
  - verify-signature: { secret: whsec_c2VjcmV0, code: GC002 }
on-exception:
  - when: { kind: [eventhub] }
    problem: { status: 503, code: GC027 }
`;

const TEMPLATE = `{
  "rules": [
    { "when": { "vendorStatus": [404] }, "status": 404, "code": "GC054", "title": "Not found" }
  ],
  "default": { "status": 502, "code": "GC027", "title": "Generic Error" }
}
`;

const CLIENTS = `values: demo-v1
on-exception:
  - when: { kind: [vendor, timeout, connection] }
    template: transforms/demo/{{errorTemplate}}
clients: {}
`;

/** A route taking the connector document's on-exception (the demo route has its own). */
const OTHER = 'id: other\nfrom:\n  direct: {}\nsteps:\n  - log: { message: hello }\n';

const lint = (route: string, template = TEMPLATE) =>
  lintFiles({
    ...VALUES,
    'routes/demo/demo.yaml': route,
    'routes/demo/other.yaml': OTHER,
    'routes/demo/connector.yaml': CLIENTS,
    'transforms/demo/vendor-errors.json': template,
  });

describe('platform codes in routes and error templates', () => {
  it('the catalog codes lint clean', async () => {
    expect(await lint(ROUTE)).toEqual([]);
  });

  it('a misspelt code of a validate step is said at its line, with the code meant', async () => {
    expect(await lint(ROUTE.replace('      code: GC025\n  - fail', '      code: GC25\n  - fail'))).toEqual([
      "routes/demo/demo.yaml:8:13 unknown platform code 'GC25'; did you mean 'GC025'? (see docs/errors.md) (at steps[0].validate.code)",
    ]);
  });

  it('an unknown code in a fail step lists the codes; one in verify-signature and in a problem is said there', async () => {
    const fail = await lint(
      ROUTE.replace('when: "body.x = 1"\n      code: GC025', 'when: "body.x = 1"\n      code: GC099'),
    );
    expect(fail).toEqual([
      expect.stringMatching(
        /^routes\/demo\/demo\.yaml:11:13 unknown platform code 'GC099'; the platform codes are GC002 Unauthorized, .*GC054 Not found \(see docs\/errors\.md\) \(at steps\[1\]\.fail\.code\)$/,
      ),
    ]);
    expect(await lint(ROUTE.replace('code: GC002 }', 'code: GC02 }'))).toEqual([
      "routes/demo/demo.yaml:12:55 unknown platform code 'GC02'; did you mean 'GC002'? (see docs/errors.md) (at steps[2].verify-signature.code)",
    ]);
    expect(await lint(ROUTE.replace('code: GC027 }', 'code: Generic Error }'))).toEqual([
      "routes/demo/demo.yaml:15:35 unknown platform code 'Generic Error'; did you mean 'GC027' (Generic Error)? (see docs/errors.md) (at on-exception[0].problem.code)",
    ]);
  });

  it('a misspelt code in an error template is said at its line in the template, naming who uses it', async () => {
    const out = await lint(
      ROUTE,
      TEMPLATE.replace('"code": "GC054"', '"code": "GC54"').replace('"code": "GC027"', '"code": "GC099"'),
    );
    expect(out).toEqual([
      "transforms/demo/vendor-errors.json:3:65 unknown platform code 'GC54' in the error template of connector document routes/demo/connector.yaml; did you mean 'GC054'? (see docs/errors.md) (at rules[0].code)",
      expect.stringMatching(
        /^transforms\/demo\/vendor-errors\.json:5:39 unknown platform code 'GC099' in the error template of connector document routes\/demo\/connector\.yaml; the platform codes are .* \(at default\.code\)$/,
      ),
    ]);
  });

  it("suggests the near codes, a title's code, or none", () => {
    expect(unknownCode('GC025')).toBeUndefined();
    expect(unknownCode('gc0054')).toMatch(/did you mean 'GC054'\?/);
    expect(unknownCode('GC028')).toMatch(/did you mean one of GC025, GC027\?/);
    expect(unknownCode('Too many requests')).toMatch(/did you mean 'GC031' \(Too many requests\)\?/);
    expect(unknownCode('GC099')).not.toMatch(/did you mean/);
  });
});
