// deploy/monitoring: every metric the Grafana dashboard and the alert rules name is one the engine
// exports (read from a sandbox engine's /metrics, the gateway loaded), the per-connector join has
// series after traffic, and the kustomization renders offline.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { parse, parseAllDocuments } from 'yaml';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { ROOT, commandExists, skipLoudly } from './support.ts';

const DIR = join(ROOT, 'deploy/monitoring');
const dashboard = JSON.parse(readFileSync(join(DIR, 'grafana-dashboard.json'), 'utf8'));
const rules = parse(readFileSync(join(DIR, 'prometheus-rule.yaml'), 'utf8'));

const exprs: [string, string][] = [
  ...dashboard.panels.flatMap((p: any) => p.targets.map((t: any) => [`panel '${p.title}'`, t.expr])),
  ...rules.spec.groups.flatMap((g: any) => g.rules.map((r: any) => [`alert ${r.alert}`, r.expr])),
];

/** Metric names in a PromQL expression: identifiers of the engine's families (not functions, labels or keywords). */
const names = (expr: string) => [...expr.matchAll(/\b((?:engine|gateway|mcp)_[a-z0-9_]+)\b/g)].map((m) => m[1]);

let e: TestEngine;
let exported: Set<string>;
let text: string;
beforeAll(async () => {
  e = await startTestEngine();
  const fx = await e.request('POST', '/foreign-exchange/exchange-rates', { buyCurrency: 'EUR', sellCurrency: 'USD' });
  expect(fx.status).toBe(200);
  text = await (await fetch(`${e.url}/metrics`)).text();
  exported = new Set(
    [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].flatMap((m) =>
      m[2] === 'histogram' ? [m[1], `${m[1]}_bucket`, `${m[1]}_sum`, `${m[1]}_count`] : [m[1]],
    ),
  );
}, 120_000);
afterAll(() => e?.close());

describe('deploy/monitoring', () => {
  it('the dashboard and the alerts name only metrics the engine exports', () => {
    expect(exprs.length).toBeGreaterThan(15);
    const missing = exprs.flatMap(([where, expr]) =>
      names(expr)
        .filter((n) => !exported.has(n))
        .map((n) => `${where}: ${n}`),
    );
    expect(missing).toEqual([]);
    // every alert and panel names at least one of the engine's metrics (or Prometheus's own `up`)
    for (const [where, expr] of exprs)
      expect(names(expr).length || /\bup\{/.test(expr) ? where : `${where}: none`).toBe(where);
  });

  it('the per-connector join and the build have series after a sandbox exchange', () => {
    expect(text).toMatch(
      /^engine_route_info\{route="get-exchange-rate",connector="gc-hubvendor-foreign-exchange-connector"\} 1$/m,
    );
    expect(text).toMatch(/^engine_route_requests_total\{route="get-exchange-rate",status="200"\} [1-9]/m);
    expect(text).toMatch(/^engine_build_info\{version="\d+\.\d+\.\d+",revision="[^"]+",node="v\d+\.\d+\.\d+"\} 1$/m);
    expect(text).toMatch(/^engine_client_breaker_state\{client="hubvendor-foreign-exchange\/hubvendor"\} 0$/m);
  });

  const kubectl = commandExists('kubectl');
  const skip = !kubectl && skipLoudly('monitoring kustomize render', 'kubectl is not installed');
  it.skipIf(skip)(
    'renders with plain kubectl kustomize: ServiceMonitor, PrometheusRule and the dashboard ConfigMap',
    () => {
      const r = spawnSync('kubectl', ['kustomize', DIR], { encoding: 'utf8', timeout: 60_000 });
      expect(r.stderr).toBe('');
      const docs = parseAllDocuments(r.stdout).map((d) => d.toJS());
      expect(docs.map((d) => d.kind).sort()).toEqual(['ConfigMap', 'PrometheusRule', 'ServiceMonitor']);
      const cm = docs.find((d) => d.kind === 'ConfigMap');
      expect(cm.metadata.labels.grafana_dashboard).toBe('1');
      expect(JSON.parse(cm.data['bank-integration-engine.json']).uid).toBe('bank-integration-engine');
      // the ServiceMonitor selects the Service of deploy/base
      const sm = docs.find((d) => d.kind === 'ServiceMonitor');
      const svc = parse(readFileSync(join(ROOT, 'deploy/base/service.yaml'), 'utf8'));
      expect(sm.spec.endpoints[0].port).toBe(svc.spec.ports[0].name);
    },
  );
});
