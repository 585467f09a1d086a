// What an environment's Kubernetes overlay mounts and requires, derived from the project rather than
// kept by hand: the connectors its environment file lists (`connectors:`) are loaded as lint loads
// them, and their values files (each route's, the extensions': the gateway's) and the environment
// file are what the pod mounts; the secret keys those values files name (`${key}`) are the Secret's
// keys it requires. (The image carries every values file as shipped: the mounts put the rendered
// ones of the connectors the environment runs over them.) `engine deploy-files` writes the result as
// Kustomize components (deploy-manifests.ts); the deploy tests render them.

import { existsSync, readdirSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { loadForListing, type EngineOptions } from '../engine.ts';
import { DiagnosticError, isError } from '../core/diagnostics.ts';
import { isSecretKey } from '../config/env-keys.ts';
import { connectorFolders, isConnectorSet } from '../dsl/connector-selection.ts';

export interface Deployment {
  env: string;
  /** the route folders it runs */
  connectors: string[];
  /** files of the values folder it mounts (relative, `/`-separated), its environment file first */
  valuesFiles: string[];
  /** the secret environmental keys those files name, sorted: the keys of the Secret it requires */
  secrets: string[];
}

/** The environments with an overlay: the folders of `<deploy>/overlays`. */
export function overlayEnvironments(deployDir: string): string[] {
  const dir = join(deployDir, 'overlays');
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

const posix = (p: string) => p.split(sep).join('/');

/** Loads the environment's connectors as lint does and says what its pods need. */
export async function deriveDeployment(opts: EngineOptions & { env: string }): Promise<Deployment> {
  const root = resolve(opts.root ?? process.cwd());
  const { routes, diagnostics, values } = await loadForListing(opts);
  // a misspelt connector, a broken route: the derivation would be wrong, so there is none
  const errors = diagnostics.filter(isError);
  if (errors.length) throw new DiagnosticError(errors);
  const valuesDir = values.dir;
  const files = new Set<string>();
  const inUse = new Set<string>();
  const add = (name: string | undefined) => {
    const vf = name === undefined ? undefined : values.find(name);
    if (!vf) return;
    files.add(`${vf.name}.values.yaml`);
    inUse.add(vf.name);
  };
  for (const r of routes) add(r.valuesName);
  for (const x of opts.extensions ?? [])
    for (const f of x.valuesFiles?.() ?? []) {
      files.add(posix(f));
      if (f.endsWith('.values.yaml')) add(f);
    }
  const secrets = new Set<string>();
  for (const name of inUse) {
    const vf = values.files.get(name)!;
    for (const k of vf.keysList())
      for (const key of vf.envKeysOf(k)) if (isSecretKey(key) && !(key in values.environment.keys)) secrets.add(key);
  }
  const envFile = posix(relative(valuesDir, values.environment.file!));
  const routeDirs = opts.routes.map((r) => resolve(root, r));
  const connectors =
    values.environment.connectors ??
    routeDirs.flatMap((d) => (existsSync(d) && isConnectorSet(d) ? connectorFolders(d) : []));
  return {
    env: opts.env,
    connectors: [...connectors],
    valuesFiles: [envFile, ...[...files].sort()],
    secrets: [...secrets].sort(),
  };
}
