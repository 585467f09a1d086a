// `--set <file>:<prop>=value`: a property that exists nowhere is refused with a suggestion; a
// property of the file, one a route's placeholder uses, or a new entry of a map-valued property
// (a gateway subscription) is accepted. Every scoped --set the tests and docs use keeps working.

import { describe, it, expect } from 'vitest';
import { join, relative } from 'node:path';
import { loadValues } from '../../engine/config/values.ts';
import { DiagnosticError } from '../../engine/core/diagnostics.ts';
import { tmpProject } from '../helpers/tmp-project.ts';

const VALUES = `hub:
  timeout: 5000
  paths.rates: /rates
limits:
  anonymous: 50
  user: 500
subscriptions:
  sandbox:
    demo:
      primary: sha256:aa
      tools: ['*']
  production: {}
`;

const root = tmpProject({
  'values/demo-v1.values.yaml': VALUES,
  'routes/r.yaml': 'id: r\nvalues: demo-v1\nfrom: { direct: {} }\nsteps:\n  - set: { vars.x: "{{extra.path}}" }\n',
});
const dir = join(root, 'values');

function refusal(set: Record<string, string>, routes?: string[]): string {
  try {
    loadValues({ dir, processEnv: {}, set, routes });
  } catch (e) {
    expect(e).toBeInstanceOf(DiagnosticError);
    return (e as Error).message;
  }
  throw new Error(`--set ${Object.keys(set).join(' ')} was accepted`);
}

const get = (set: Record<string, string>, key: string, routes?: string[]) =>
  loadValues({ dir, processEnv: {}, set, routes }).find('demo-v1')!.get(key);

describe('scoped --set', () => {
  it('refuses a typo of an existing property, naming the file and suggesting the property', () => {
    expect(refusal({ 'demo-v1:limits.anonymus': '60' })).toBe(
      `--set:1:1 'demo-v1:limits.anonymus' would change nothing in ${relative(process.cwd(), join(dir, 'demo-v1.values.yaml'))}: ` +
        "no property 'limits.anonymus'; did you mean 'limits.anonymous'?",
    );
    expect(refusal({ 'demo-v1:hub.timeuot': '1' })).toContain("did you mean 'hub.timeout'?");
  });

  it('refuses a name that exists nowhere, one below a plain value, and a whole group', () => {
    expect(refusal({ 'demo-v1:nothing': '1' })).toContain("no property 'nothing'");
    expect(refusal({ 'demo-v1:limits.user.max': '1' })).toContain("'limits.user' is a value, not a map");
    expect(refusal({ 'demo-v1:limits': '1' })).toContain(
      "'limits' is a group of properties (limits.anonymous, limits.user): set one of them",
    );
  });

  it('refuses a new map entry whose name is a slip of an existing entry (swapped neighbours, one character more or less, case)', () => {
    expect(refusal({ 'demo-v1:subscriptions.sandbox.dmeo.quota.public': '5' })).toContain(
      "did you mean 'subscriptions.sandbox.demo.quota.public'?",
    );
    for (const slip of ['dem', 'demoo', 'Demo']) {
      expect(refusal({ [`demo-v1:subscriptions.sandbox.${slip}.tools`]: '[x]' }), slip).toContain(
        "did you mean 'subscriptions.sandbox.demo.tools'?",
      );
    }
  });

  it('accepts a new map entry close to an existing one when it is no slip: names people choose (bank-b beside bank-a, crm beside demo)', () => {
    for (const name of ['dema', 'deno', 'crm', 'demo2x', 'memo']) {
      expect(
        get(
          { [`demo-v1:subscriptions.sandbox.${name}.primary`]: 'sha256:cc' },
          `subscriptions.sandbox.${name}.primary`,
        ),
        name,
      ).toBe('sha256:cc');
    }
  });

  it('accepts a property of the file and new entries of a map-valued property, empty maps included', () => {
    expect(get({ 'demo-v1:limits.anonymous': '60' }, 'limits.anonymous')).toBe(60);
    expect(get({ 'demo-v1:hub.paths.rates': '/r2' }, 'hub.paths.rates')).toBe('/r2');
    expect(
      get({ 'demo-v1:subscriptions.sandbox.demo.quota.public': '2' }, 'subscriptions.sandbox.demo.quota.public'),
    ).toBe(2);
    expect(
      get({ 'demo-v1:subscriptions.production.crm.primary': 'sha256:bb' }, 'subscriptions.production.crm.primary'),
    ).toBe('sha256:bb');
  });

  it("accepts a property only a route's placeholder uses when the routes are given", () => {
    const routes = [join(root, 'routes')];
    expect(refusal({ 'demo-v1:extra.path': '/x' })).toContain("no property 'extra.path'");
    expect(get({ 'demo-v1:extra.path': '/x' }, 'extra.path', routes)).toBe('/x');
    expect(refusal({ 'demo-v1:extra.paht': '/x' }, routes)).toContain(
      "no property 'extra.paht'; did you mean 'extra.path'?",
    );
  });

  it('keeps every scoped --set of the tests, benchmarks and docs working on the shipped values', () => {
    const used = {
      'gateway:gateway.subscriptions.sandbox.fx-only.quota.public': '2',
      'gateway:gateway.subscriptions.sandbox.demo-agent.quota.user': '3',
      'gateway:gateway.subscriptions.production.crm-agent.quota.public': '500',
      'screening-v2:screenvendor.alertRisks.pageSize': '2',
      'screening-v2:screenvendor.alertRisks.maxPages': '3',
      'screening-v2:redelivery.maximumRetries': '1',
      'screening-v2:redeliveryDelay': '20',
      'screening-v2:http.client.response.timeout': '500',
      'screening-v2:partyLifecycleBaseURL': '/party-lifecycle',
      'sandbox-demo:demo.payments.schedule': '*/5 * * * * *',
      'foreign-exchange-v1:redeliveryDelay': '20',
      'foreign-exchange-v1:backOffMultiplier': '1',
      'foreign-exchange-v1:http.client.response.timeout': '500',
      'foreign-exchange-v1:maximumRedeliveries': '1',
      'foreign-exchange-v1:retryFlag': 'false',
      'inbound-batch-payments-v0:routing.number': '',
      'payment-v2:maximumRedeliveries': '5',
    };
    for (const env of ['sandbox', 'production']) {
      const values = loadValues({ dir: 'values', env, set: used, processEnv: {}, lenient: true, routes: ['routes'] });
      expect(values.find('gateway')!.get('gateway.subscriptions.production.crm-agent.quota.public')).toBe(500);
      expect(values.find('screening-v2')!.get('partyLifecycleBaseURL')).toBe('/party-lifecycle');
    }
  });
});
