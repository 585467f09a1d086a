// `engine new connector NAME --vendor V`: writes a working connector (connector document with its
// client profile, a route, its request schema and response mapping, an error template, a values
// file, a passing route test, a docs page) and says what else a deployment needs. It passes
// `engine lint` and `engine test` as written, and runs under `npm start` with its test's stubs as
// the vendor (`npm start -- --stubs <its test>`), before a simulator or a real vendor exists.

import type { Command } from 'commander';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { parseYamlFile } from '../core/yaml-source.ts';
import { CODE } from '../core/error-catalog.ts';

const KEBAB = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

interface Names {
  name: string;
  vendor: string;
  dir: string;
  values: string;
  key: string;
  route: string;
  path: string;
  connector: string;
  /** a template of routes/connector.yaml the client extends, when the project has it */
  extendsSeed: boolean;
}

/** The files of a new connector, by path under the project root. */
function files(n: Names): Record<string, string> {
  const camel = n.vendor.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
  const client = n.extendsSeed
    ? `  ${n.vendor}:\n    extends: seed-http\n    base-url: "{{${camel}.baseUrl}}"\n`
    : `  ${n.vendor}:
    base-url: "{{${camel}.baseUrl}}"
    timeouts:
      connect: "{{http.client.connect.timeout}}"
      request: "{{http.client.request.timeout}}"
      response: "{{http.client.response.timeout}}"
    retry:
      enabled: "{{retryFlag}}"
      max-retries: "{{maximumRedeliveries}}"
      delay: "{{redeliveryDelay}}"
      statuses: "{{retryStatuses}}"
      multiplier: "{{backOffMultiplier}}"
`;
  return {
    [`values/${n.values}.values.yaml`]: `# Values of the connector of routes/${n.dir}/ (engine new connector). The vendor's address differs
# per deployment: the environmental key ${n.key} gives it (values/environments/<env>.yaml keys:,
# or ${n.key.toUpperCase().replace(/-/g, '_')} in the environment).

${camel}:
  baseUrl: \${${n.key}}
  ${n.name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase())}ApiUri: /v1/${n.name}

retryFlag: true
maximumRedeliveries: 2
redeliveryDelay: 200
retryStatuses: 429,502,503,504
backOffMultiplier: 2

http:
  client:
    connect:
      timeout: 5000
    request:
      timeout: 10000
    response:
      timeout: 15000
    proxy:
      activate: false
`,
    [`routes/${n.dir}/connector.yaml`]: `# yaml-language-server: $schema=../../schemas/clients.schema.json
connector: ${n.connector}
values: ${n.values}
on-exception:
  - when: { kind: [vendor, timeout, connection] }
    template: transforms/${n.vendor}/transform-${n.vendor}-error-details.json

clients:
${client}`,
    [`routes/${n.dir}/${n.name}.yaml`]: `# yaml-language-server: $schema=../../schemas/route.schema.json
id: ${n.route}
description: Asks ${n.vendor} for a ${n.name.replace(/-/g, ' ')} (written by engine new connector; edit the schema, the call and the mapping).

from:
  http:
    method: POST
    path: ${n.path}

steps:
  - validate:
      schema: schemas/${n.name}-request.schema.json

  - to-http:
      client: ${n.vendor}
      method: POST
      path: "{{${camel}.${n.name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase())}ApiUri}}"
      body: "{ 'reference': body.reference }"

  - transform: ${n.name}-response.jsonata
`,
    [`routes/${n.dir}/schemas/${n.name}-request.schema.json`]: `${JSON.stringify(
      {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        title: `${n.name} request`,
        type: 'object',
        additionalProperties: false,
        required: ['reference'],
        properties: {
          reference: { type: 'string', minLength: 1, maxLength: 35, pattern: '^[A-Za-z0-9-]+$' },
        },
      },
      null,
      2,
    )}\n`,
    [`routes/${n.dir}/${n.name}-response.jsonata`]: `/* ${n.vendor}'s answer -> the platform's ${n.name.replace(/-/g, ' ')} */
{
  "reference": body.reference,
  "status": body.status
}
`,
    [`transforms/${n.vendor}/transform-${n.vendor}-error-details.json`]: `${JSON.stringify(
      {
        description: `${n.vendor} errors -> platform problems (engine new connector: add the vendor's codes)`,
        rules: [
          {
            when: { kind: ['timeout'] },
            status: 504,
            code: CODE.generic,
            title: 'Generic Error',
            detail: `'${n.vendor} did not answer in time: ' & detail`,
          },
          {
            when: { kind: ['connection'] },
            status: 502,
            code: CODE.generic,
            title: 'Generic Error',
            detail: `'${n.vendor} could not be reached: ' & detail`,
          },
          {
            when: { vendorStatus: [400, 422] },
            status: 400,
            code: CODE.validation,
            title: 'Validation error',
            detail: `'${n.vendor} refused the request'`,
          },
          { when: { vendorStatus: [404] }, status: 404, code: CODE.notFound, title: 'Not found' },
        ],
        default: {
          status: 502,
          code: CODE.generic,
          title: 'Generic Error',
          detail: `'${n.vendor} answered ' & $string(vendorStatus)`,
        },
      },
      null,
      2,
    )}\n`,
    [`routes/${n.dir}/tests/${n.name}.yaml`]: `# yaml-language-server: $schema=../../../schemas/route-test.schema.json
description: ${n.route} against a stub ${n.vendor} (also what \`engine run --stubs\` serves).
set:
  # any address: the stub takes the calls
  ${n.key}: http://${n.vendor}.invalid
  ${n.values}:redeliveryDelay: 1

stubs:
  ${n.vendor}:
    status: 200
    body: { reference: REF-1, status: ACCEPTED }

tests:
  - name: maps the vendor's answer
    request:
      path: ${n.path}
      body: { reference: REF-1 }
    expect:
      status: 200
      body: { reference: REF-1, status: ACCEPTED }
      calls:
        ${n.vendor}:
          - method: POST
            path: /v1/${n.name}
            body: { reference: REF-1 }

  - name: bad input is a 400 naming the field, and no vendor call
    request:
      path: ${n.path}
      body: { reference: '' }
    expect:
      status: 400
      body-contains: { code: GC025 }
      calls: { ${n.vendor}: 0 }

  # a POST is repeated only with an idempotency-key the vendor deduplicates on (docs/routes.md)
  - name: a vendor outage is 502 GC027, and the POST is not repeated
    request:
      path: ${n.path}
      body: { reference: REF-2 }
    stubs:
      ${n.vendor}: { status: 503 }
    expect:
      status: 502
      body-contains: { code: GC027 }
      calls: { ${n.vendor}: 1 }
`,
    [`docs/connectors/${n.name}.md`]: `# ${n.name} connector (${n.vendor})

Written by \`engine new connector ${n.name} --vendor ${n.vendor}\`; say here what the connector does,
the vendor's API it calls, and its error table.

- Route: \`POST ${n.path}\` (\`routes/${n.dir}/${n.name}.yaml\`), request schema
  \`routes/${n.dir}/schemas/${n.name}-request.schema.json\`, mapping \`routes/${n.dir}/${n.name}-response.jsonata\`.
- Client profile \`${n.vendor}\` in \`routes/${n.dir}/connector.yaml\`; values \`values/${n.values}.values.yaml\`.
- Errors: \`transforms/${n.vendor}/transform-${n.vendor}-error-details.json\`.
- Environmental key: \`${n.key}\` (the vendor's base URL), per environment.
- Tests: \`node bin/engine.js test routes/${n.dir}\`; by hand before a simulator exists:
  \`npm start -- --stubs routes/${n.dir}/tests/${n.name}.yaml\`.
`,
  };
}

export function registerNewCommand(program: Command): void {
  program
    .command('new')
    .description('write a new connector from a template')
    .command('connector')
    .argument('<name>', 'what the connector does, kebab-case (e.g. credit-report)')
    .requiredOption('--vendor <vendor>', 'the vendor it calls, kebab-case (e.g. bureau)')
    .option('--root <dir>', 'project root', '.')
    .description('write a working connector: route, client, values, schema, mapping, error template, test, docs')
    .action((name: string, o: { vendor: string; root: string }) => {
      for (const [what, v] of [
        ['name', name],
        ['--vendor', o.vendor],
      ])
        if (!KEBAB.test(v)) {
          process.stderr.write(
            `engine: ${what} '${v}' must be kebab-case: lower-case letters and digits joined by '-'\n`,
          );
          process.exit(1);
        }
      const dir = `${o.vendor}-${name}`;
      const templates = join(o.root, 'routes', 'connector.yaml');
      const n: Names = {
        name,
        vendor: o.vendor,
        dir,
        values: `${name}-v1`,
        key: `${o.vendor}-base-url`,
        route: name,
        path: `/${name}`,
        connector: `gc-${dir}-connector`,
        extendsSeed: existsSync(templates) && hasSeed(templates),
      };
      const out = files(n);
      const taken = Object.keys(out).filter((f) => existsSync(join(o.root, f)));
      if (taken.length) {
        process.stderr.write(`engine: not writing over ${taken.join(', ')}; choose another name or vendor\n`);
        process.exit(1);
      }
      for (const [f, text] of Object.entries(out)) {
        mkdirSync(dirname(join(o.root, f)), { recursive: true });
        writeFileSync(join(o.root, f), text);
        process.stdout.write(`wrote ${relative('.', join(o.root, f)) || f}\n`);
      }
      process.stdout.write(`
Next:
  node bin/engine.js lint routes/ && node bin/engine.js test routes/${dir}
  npm start -- --stubs routes/${dir}/tests/${name}.yaml     (${o.vendor} answered by the test's stubs)
  curl -s -X POST http://127.0.0.1:8080${n.path} -H 'content-type: application/json' -d '{"reference": "REF-1"}'
A deployment also needs, per environment:
  the key ${n.key} (values/environments/<env>.yaml keys:, or ${n.key.toUpperCase().replace(/-/g, '_')}) -- no secret
  ${dir} in the connectors: list of values/environments/<env>.yaml (an environment without the list runs every folder)
  node bin/engine.js deploy-files   (the overlays that run it mount values/${n.values}.values.yaml and require its secrets)
`);
    });
}

/** Whether the project's client templates have seed-http (the shipped timeouts and retry names). */
function hasSeed(file: string): boolean {
  try {
    const v = parseYamlFile(file).value as { clients?: Record<string, unknown> };
    return !!v?.clients?.['seed-http'];
  } catch {
    return false;
  }
}
