// The exposure example (deploy/ingress) rendered by plain `kubectl kustomize`: the Ingress forwards
// only the vendors' webhooks and the gateway, each path one the engine serves, never an operations
// endpoint or the console; the NetworkPolicy selects the engine's pods and their port by name.

import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { ENGINE_PATHS } from '../../engine/http/route-paths.ts';
import { GATEWAY_PATHS } from '../../engine/gateway/index.ts';
import { loadForListing } from '../../engine/engine.ts';
import { IN_CI, ROOT, commandExists, skipLoudly } from './support.ts';

const hasKubectl = commandExists('kubectl');
const skip = !hasKubectl && skipLoudly('ingress example render test', 'kubectl is not installed');

function render(dir: string): any[] {
  const r = spawnSync('kubectl', ['kustomize', join(ROOT, dir)], { encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) throw new Error(`kubectl kustomize ${dir}: ${r.stderr}`);
  return parseAllDocuments(r.stdout).map((d) => d.toJS());
}

if (IN_CI && !hasKubectl) {
  it('kubectl is installed (CI renders the manifests)', () => {
    expect.fail('kubectl is not installed: the Kubernetes manifests cannot be rendered');
  });
}

describe.skipIf(skip)('deploy/ingress', () => {
  const objects = hasKubectl ? render('deploy/ingress') : [];
  const ingress = objects.find((o) => o.kind === 'Ingress');
  const policy = objects.find((o) => o.kind === 'NetworkPolicy');

  it('forwards /webhooks/*, /mcp and its OAuth metadata only, each to the engine Service', async () => {
    const paths = ingress.spec.rules.flatMap((r: any) => r.http.paths);
    expect(paths.map((p: any) => `${p.pathType} ${p.path}`).sort()).toEqual(
      ['Prefix /webhooks/', ...GATEWAY_PATHS.map((p) => `Exact ${p}`)].sort(),
    );
    for (const p of paths)
      expect(p.backend.service).toEqual({ name: 'bank-integration-engine', port: { name: 'http' } });
    // never an operations endpoint nor the console
    for (const p of paths)
      for (const op of [...ENGINE_PATHS, '/console'])
        expect(p.path.startsWith(op) || op.startsWith(p.path)).toBe(false);
    // the prefix reaches the webhook routes, and only them
    const { routes } = await loadForListing({ routes: ['routes'], root: ROOT });
    const http = routes.filter((r) => r.source.kind === 'http').map((r) => (r.source.config as { path: string }).path);
    expect(http.filter((p) => p.startsWith('/webhooks/')).length).toBeGreaterThan(0);
  });

  it('lets traffic reach only the engine pods and their http port', () => {
    const pod = render('deploy/overlays/production').find((o) => o.kind === 'Deployment').spec.template;
    expect(pod.metadata.labels).toMatchObject(policy.spec.podSelector.matchLabels);
    expect(policy.spec.policyTypes).toEqual(['Ingress']);
    const names = pod.spec.containers[0].ports.map((p: any) => p.name);
    for (const rule of policy.spec.ingress) for (const port of rule.ports) expect(names).toContain(port.port);
  });
});
