// `engine deploy-files`: writes the Kustomize components of every overlay (deploy/overlays/<env>)
// from the connectors each environment lists (deploy-files.ts, deploy-manifests.ts); `--check`
// writes nothing and exits 1 naming each file that is stale, for CI.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import type { EngineOptions } from '../engine.ts';
import { DiagnosticError, formatDiagnostic } from '../core/diagnostics.ts';
import { createLogger } from '../observability/logger.ts';
import { deriveDeployment, overlayEnvironments, type Deployment } from './deploy-files.ts';
import { CONNECTORS_COMPONENT, connectorsComponent, valuesComponent } from './deploy-manifests.ts';

interface DeployFilesOpts {
  values: string;
  deploy: string;
  check?: boolean;
}

/** Each generated file and its text, for the environments with an overlay. */
async function deployFiles(
  toOptions: (env: string) => EngineOptions,
  deployDir: string,
  valuesDir: string,
): Promise<{ deployments: Deployment[]; files: Map<string, string> }> {
  const deployments: Deployment[] = [];
  for (const env of overlayEnvironments(deployDir))
    deployments.push(await deriveDeployment({ ...toOptions(env), env, logger: createLogger('silent') }));
  const files = new Map<string, string>([[join(valuesDir, 'kustomization.yaml'), valuesComponent(deployments)]]);
  for (const d of deployments) {
    const overlay = join(deployDir, 'overlays', d.env);
    files.set(
      join(overlay, CONNECTORS_COMPONENT, 'kustomization.yaml'),
      connectorsComponent(d, deployments, overlay, valuesDir),
    );
  }
  return { deployments, files };
}

export function registerDeployFilesCommand(
  program: Command,
  toOptions: (dirs: string[], o: { values: string; env: string }) => EngineOptions,
): void {
  program
    .command('deploy-files')
    .argument('[dirs...]', 'route files or directories', ['routes'])
    .description(
      "write each Kubernetes overlay's values mounts and required secret keys, derived from the connectors its environment lists (--check: exit 1 when a written file is stale)",
    )
    .option('--values <dir>', 'values directory', 'values')
    .option('--deploy <dir>', 'the Kustomize folder, with overlays/<env>', 'deploy')
    .option('--check', 'write nothing; exit 1 naming each file that differs from what would be written')
    .action(async (dirs: string[], o: DeployFilesOpts) => {
      let out: Awaited<ReturnType<typeof deployFiles>>;
      try {
        out = await deployFiles(
          (env) => toOptions(dirs, { values: o.values, env }),
          resolve(o.deploy),
          resolve(o.values),
        );
      } catch (e) {
        if (!(e instanceof DiagnosticError)) throw e;
        for (const d of e.diagnostics) process.stderr.write(formatDiagnostic(d) + '\n');
        process.stderr.write(`engine: ${e.diagnostics.length} problem(s); nothing written\n`);
        process.exit(1);
      }
      if (!out.deployments.length) {
        process.stderr.write(`engine: ${join(o.deploy, 'overlays')} has no overlay folder; nothing written\n`);
        process.exit(1);
      }
      for (const d of out.deployments)
        process.stdout.write(
          `${d.env}: connectors ${d.connectors.join(', ') || 'none'}; secrets ${d.secrets.join(', ') || 'none'}\n`,
        );
      const stale: string[] = [];
      for (const [file, text] of out.files) {
        const rel = relative('.', file);
        if (existsSync(file) && readFileSync(file, 'utf8') === text) continue;
        stale.push(rel);
        if (o.check) continue;
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, text);
        process.stdout.write(`wrote ${rel}\n`);
      }
      if (o.check && stale.length) {
        process.stderr.write(
          `engine: stale: ${stale.join(', ')}; run \`node bin/engine.js deploy-files\` and commit the result\n`,
        );
        process.exit(1);
      }
      if (!stale.length) process.stdout.write('up to date\n');
    });
}
