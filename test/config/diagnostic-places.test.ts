// Every diagnostic points where the fix goes (issue 29): a bad value at the values file line that
// sets it, with the value it got and what is allowed in words; an error template's problem at the
// template's line; no follow-on line repeating or misstating an earlier one (an unknown placeholder,
// a YAML syntax error, a typo two `extends` away); "did you mean" for a file named with a typo.

import { describe, it, expect } from 'vitest';
import { lintFiles } from '../helpers/lint-files.ts';

const VALUES = 'vendor.baseUrl: http://127.0.0.1:9\nvendor.connections: lots\nvendor.timeout: fast\nretryFlag: maybe\n';

/** A route calling the `vendor` profile of its folder. */
const ROUTE = `id: r
from:
  http:
    path: /r
steps:
  - to-http:
      client: vendor
      path: /x
      method: HEAD
`;

const connector = (clients: string, head = '') => `values: demo-v1\n${head}clients:\n${clients}`;
const VENDOR = '  vendor:\n    base-url: "{{vendor.baseUrl}}"\n';

const TEMPLATE = `{
  "rules": [
    { "when": { "vendorStatus": [404] }, "status": 404, "code": "GC054", "title": "Not found" }
  ],
  "default": { "status": 502, "code": "GC027", "title": "Generic Error" }
}
`;
const ON_EXCEPTION = 'on-exception:\n  - when: { kind: [vendor] }\n    template: transforms/v/errors.json\n';

interface Case {
  name: string;
  files: Record<string, string>;
  /** the whole output, line by line (a RegExp matches one line) */
  expected: (string | RegExp)[];
}

const project = (files: Record<string, string>) => ({
  'values/demo-v1.values.yaml': VALUES,
  'routes/conn/r.yaml': ROUTE,
  ...files,
});

const CASES: Case[] = [
  {
    name: 'a bad value of a profile: at the values file line, its value, what is allowed in words',
    files: project({
      'routes/conn/connector.yaml': connector(
        VENDOR +
          '    connections: "{{vendor.connections}}"\n    timeouts:\n      connect: "{{vendor.timeout}}"\n    retry:\n      enabled: "{{retryFlag}}"\n',
      ),
    }),
    expected: [
      "values/demo-v1.values.yaml:3:17 property 'vendor.timeout': 'connect' must be a number, got 'fast' (used by {{vendor.timeout}} at routes/conn/connector.yaml:7:16, clients.vendor.timeouts.connect)",
      "values/demo-v1.values.yaml:4:12 property 'retryFlag': 'enabled' must be true or false, got 'maybe' (used by {{retryFlag}} at routes/conn/connector.yaml:9:16, clients.vendor.retry.enabled)",
      "values/demo-v1.values.yaml:2:21 property 'vendor.connections': 'connections' must be a whole number from 1, got 'lots' (used by {{vendor.connections}} at routes/conn/connector.yaml:5:18, clients.vendor.connections)",
      "routes/conn/r.yaml:7:15 client 'vendor' has errors (see above) (at steps[0].to-http.client)",
    ],
  },
  {
    name: 'a number below its minimum: said once, in words ("must be" once)',
    files: project({
      'values/demo-v1.values.yaml': 'vendor.baseUrl: http://127.0.0.1:9\nvendor.connections: 0\n',
      'routes/conn/connector.yaml': connector(VENDOR + '    connections: "{{vendor.connections}}"\n'),
    }),
    expected: [
      "values/demo-v1.values.yaml:2:21 property 'vendor.connections': 'connections' must be a whole number from 1, got 0 (used by {{vendor.connections}} at routes/conn/connector.yaml:5:18, clients.vendor.connections)",
      "routes/conn/r.yaml:7:15 client 'vendor' has errors (see above) (at steps[0].to-http.client)",
    ],
  },
  {
    name: "a bad value of a route's step: at the values file line too; a literal stays at the route",
    files: {
      'values/demo-v1.values.yaml': VALUES,
      'routes/v.yaml':
        'id: v\nvalues: demo-v1\nfrom:\n  http:\n    path: /v\nsteps:\n  - to-http:\n      url: "{{vendor.baseUrl}}/x"\n      method: GET\n      retry:\n        enabled: "{{retryFlag}}"\n        max-retries: lots\n',
    },
    expected: [
      "values/demo-v1.values.yaml:4:12 property 'retryFlag': 'enabled' must be true or false, got 'maybe' (used by {{retryFlag}} at routes/v.yaml:11:18, steps[0].to-http.retry.enabled)",
      /^routes\/v\.yaml:12:22 'max-retries' must be a number \(at steps\[0\]\.to-http\.retry\.max-retries\)$/,
    ],
  },
  {
    name: "an error template's unknown key, at the template's line",
    files: project({
      'routes/conn/connector.yaml': connector(VENDOR, ON_EXCEPTION),
      'transforms/v/errors.json': TEMPLATE.replace('"title": "Generic Error"', '"titel": "Generic Error"'),
    }),
    expected: [
      "transforms/v/errors.json:5:48 unknown key 'titel' in error template; did you mean 'title'? (the error template of connector document routes/conn/connector.yaml) (at default.titel)",
    ],
  },
  {
    name: "an error template's bad expression, at the template's line",
    files: project({
      'routes/conn/connector.yaml': connector(VENDOR, ON_EXCEPTION),
      'transforms/v/errors.json': TEMPLATE.replace('"title": "Generic Error"', '"detail": "vendorBody.("'),
    }),
    expected: [
      /^transforms\/v\/errors\.json:5:58 JSONata: .* \(the error template of connector document routes\/conn\/connector\.yaml\)/,
    ],
  },
  {
    name: "an error template that is no JSON, at the template's line",
    files: project({
      'routes/conn/connector.yaml': connector(VENDOR, ON_EXCEPTION),
      'transforms/v/errors.json': TEMPLATE.replace('"GC054",', '"GC054"'),
    }),
    expected: [
      /^transforms\/v\/errors\.json:3:\d+ invalid JSON: .*\(named at routes\/conn\/connector\.yaml, on-exception\[0\]\.template\)$/,
    ],
  },
  {
    name: 'an unknown platform code of an error template: the catalog code meant',
    files: project({
      'routes/conn/connector.yaml': connector(VENDOR, ON_EXCEPTION),
      'transforms/v/errors.json': TEMPLATE.replace('"GC054"', '"GC54"'),
    }),
    expected: [
      "transforms/v/errors.json:3:65 unknown platform code 'GC54' in the error template of connector document routes/conn/connector.yaml; did you mean 'GC054'? (see docs/errors.md) (at rules[0].code)",
    ],
  },
  {
    name: 'an unknown placeholder in a url: no follow-on about the url it left',
    files: {
      'values/demo-v1.values.yaml': VALUES,
      'routes/u.yaml':
        'id: u\nvalues: demo-v1\nfrom:\n  http:\n    path: /u\nsteps:\n  - to-http:\n      url: "{{vendr.baseUrl}}/x/{id}"\n      method: GET\n',
    },
    expected: [
      "routes/u.yaml:8:12 unknown property 'vendr.baseUrl' in values 'demo-v1'; did you mean 'vendor.baseUrl'? (at steps[0].to-http.url)",
    ],
  },
  {
    name: 'an unknown placeholder in a path: no false "url template has {...}"',
    files: project({
      'routes/conn/connector.yaml': connector(VENDOR),
      'routes/conn/r.yaml': ROUTE.replace('path: /x', 'path: "/x/{{vendor.idd}}"'),
    }),
    expected: [/^routes\/conn\/r\.yaml:8:13 unknown property 'vendor\.idd' in values 'demo-v1'/],
  },
  {
    name: 'a YAML syntax error: no false "taken by no route" or "not used" warnings',
    files: project({
      'routes/conn/connector.yaml': connector(
        VENDOR,
        'on-exception:\n  - when: { kind: [vendor] }\n    problem: { status: 502 }\n',
      ),
      'routes/conn/r.yaml': ROUTE + '  - set: [unclosed\n',
    }),
    expected: [/^routes\/conn\/r\.yaml:11:1 YAML: /],
  },
  {
    name: 'a typo two extends away: "extends X, which has errors", not "has no base-url"',
    files: project({
      'routes/connector.yaml':
        'clients:\n  seed:\n    timeouts:\n      connect: "{{vendor.timeout}}"\n  hub:\n    extends: sede\n    base-url: "{{vendor.baseUrl}}"\n',
      'routes/conn/connector.yaml': connector('  mid: { extends: hub }\n  vendor: { extends: mid }\n'),
    }),
    expected: [
      "routes/connector.yaml:6:14 unknown client 'sede'; did you mean 'seed'? (at clients.hub.extends)",
      "routes/conn/r.yaml:7:15 client 'vendor' extends 'hub', which has errors (see above) (at steps[0].to-http.client)",
      /^routes\/connector\.yaml:2:3 warning: client template 'seed' is extended by no client/,
    ],
  },
  {
    name: 'file not found: the neighbour of a close name (schema, mapping, template)',
    files: project({
      'routes/conn/connector.yaml': connector(VENDOR, ON_EXCEPTION.replace('errors.json', 'error.json')),
      'transforms/v/errors.json': TEMPLATE,
      'schemas/credit-report.schema.json': '{ "type": "object" }',
      'routes/conn/report.jsonata': '$',
      'routes/conn/s.yaml':
        'id: s\nfrom:\n  http:\n    path: /s\nsteps:\n  - validate:\n      schema: schemas/credit-reports.schema.json\n  - transform:\n      file: reports.jsonata\n',
    }),
    expected: [
      "routes/conn/connector.yaml:4:15 file not found: transforms/v/error.json; did you mean 'transforms/v/errors.json'? (at on-exception[0].template)",
      "routes/conn/s.yaml:7:15 file not found: schemas/credit-reports.schema.json; did you mean 'schemas/credit-report.schema.json'? (at steps[0].validate.schema)",
      "routes/conn/s.yaml:9:13 file not found: reports.jsonata; did you mean 'report.jsonata'? (at steps[1].transform.file)",
    ],
  },
];

describe('diagnostics point where the fix goes', () => {
  it.each(CASES)('$name', async ({ files, expected }) => {
    const out = await lintFiles(files);
    expect(out).toEqual(expected.map((e) => (typeof e === 'string' ? e : expect.stringMatching(e))));
    // what is allowed is said in words
    expect(out.join('\n')).not.toMatch(/must be must be|string matching|\^\\d|\bmust be (integer|number|boolean)\b/);
  });
});
