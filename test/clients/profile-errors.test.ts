// engine lint of a client profile with problems: each problem is said once, where it is fixed (a
// wrongly typed value at the values file line that sets it, with the value, in words, naming the
// placeholder; a secret's value never); a step naming that profile (or one extending
// it) is told the profile has errors, not that it is unknown; the file's other profiles still work.

import { describe, expect, it } from 'vitest';
import { lintProject } from '../../engine/engine.ts';
import { createLogger } from '../../engine/observability/logger.ts';
import { formatDiagnostic } from '../../engine/core/diagnostics.ts';
import { tmpProject } from '../helpers/tmp-project.ts';

const CLIENTS = `values: hub
clients:
  hubvendor:
    base-url: "{{hub.url}}"
    retry:
      enabled: "{{retryFlag}}"
      max-retries: "{{maximumRedeliveries}}"
  hubvendor-slow:
    extends: hubvendor
  other:
    base-url: http://127.0.0.1:9
`;

const ROUTE = `id: r
from: { direct: {} }
steps:
  - to-http: { client: hubvendor, method: GET }
  - to-http: { client: hubvendor-slow, method: GET }
  - to-http: { client: other, method: GET }
`;

async function lint(files: Record<string, string>): Promise<string[]> {
  const root = tmpProject({
    'values/hub.values.yaml':
      'hub.url: http://127.0.0.1:9\nretryFlag: maybe\nmaximumRedeliveries: lots\napiKey: s3cr3t-k3y\n',
    ...files,
  });
  const diags = await lintProject({ routes: ['routes'], root, logger: createLogger('silent'), processEnv: {} });
  // file names (also those a message names) relative to the project
  return diags.map((d) => formatDiagnostic(d).replace(/[^\s(]*?\b(routes|values)\//g, '$1/'));
}

describe('engine lint of a client profile with problems', () => {
  it('reports each wrongly typed value once, and the steps naming the profile as having errors', async () => {
    const out = await lint({ 'routes/hub/connector.yaml': CLIENTS, 'routes/hub/r.yaml': ROUTE });
    expect(out).toEqual([
      "values/hub.values.yaml:2:12 property 'retryFlag': 'enabled' must be true or false, got 'maybe' (used by {{retryFlag}} at routes/hub/connector.yaml:6:16, clients.hubvendor.retry.enabled)",
      "values/hub.values.yaml:3:22 property 'maximumRedeliveries': 'max-retries' must be a number, got 'lots' (used by {{maximumRedeliveries}} at routes/hub/connector.yaml:7:20, clients.hubvendor.retry.max-retries)",
      "routes/hub/r.yaml:4:24 client 'hubvendor' has errors (see above) (at steps[0].to-http.client)",
      "routes/hub/r.yaml:5:24 client 'hubvendor-slow' extends 'hubvendor', which has errors (see above) (at steps[1].to-http.client)",
    ]);
  });

  it('a placeholder that does not resolve, a bad name and a missing values file are each said once', async () => {
    const clients = CLIENTS.replace('{{retryFlag}}', '{{retryFlg}}').replace('  other:', '  Other:');
    const out = await lint({
      'routes/hub/connector.yaml': clients,
      'routes/hub/r.yaml': ROUTE.replace('client: other', 'client: Other'),
    });
    expect(out.filter((l) => l.includes('connector.yaml:6:'))).toEqual([
      expect.stringMatching(/^routes\/hub\/connector\.yaml:6:16 .*'retryFlg'.*retryFlag/),
    ]);
    expect(out).toContainEqual(
      "routes/hub/connector.yaml:10:3 client name 'Other' must be lower-case letters, digits and '-', starting with a letter or digit (at clients.Other)",
    );
    expect(out).toContainEqual(
      "routes/hub/r.yaml:6:24 client 'Other' has errors (see above) (at steps[2].to-http.client)",
    );
    expect(out.join('\n')).not.toMatch(/unknown client|property name|must match pattern/);

    const missing = await lint({
      'routes/hub/connector.yaml': CLIENTS.replace('values: hub', 'values: hubb'),
      'routes/hub/r.yaml': ROUTE,
    });
    expect(missing[0]).toMatch(/^routes\/hub\/connector\.yaml:1:9 values file 'hubb' not found .*did you mean 'hub'/);
    expect(missing.slice(1)).toEqual([
      "routes/hub/r.yaml:4:24 client 'hubvendor' has errors (see above) (at steps[0].to-http.client)",
      "routes/hub/r.yaml:5:24 client 'hubvendor-slow' has errors (see above) (at steps[1].to-http.client)",
      "routes/hub/r.yaml:6:24 client 'other' has errors (see above) (at steps[2].to-http.client)",
    ]);
  });

  it("names the placeholder, never a secret's value", async () => {
    const out = await lint({
      'routes/hub/connector.yaml': CLIENTS.replace('{{maximumRedeliveries}}', '{{apiKey}}'),
      'routes/hub/r.yaml': ROUTE,
    });
    expect(out).toContainEqual(
      expect.stringMatching(
        /^values\/hub\.values\.yaml:4:9 property 'apiKey': 'max-retries' must be a number \(used by \{\{apiKey\}\} at routes\/hub\/connector\.yaml:7:20/,
      ),
    );
    expect(out.join('\n')).not.toContain('s3cr3t');
  });
});
