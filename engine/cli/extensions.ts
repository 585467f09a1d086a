// The extensions the `engine` command registers and their CLI commands, in one place: the ones
// the program passes in (bin/engine.js adds the embedded sandbox, which the engine library does
// not know: test/engine/layering.test.ts), then the agent tool gateway, then the route tests'
// document kind (so that run and lint skip routes/<connector>/tests/*.yaml and check them).
// The gateway's code (and the JWT library it brings) loads only when a route folder being
// loaded has a tools file, or when one of its own commands runs.

import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { EngineExtension, PrepareContext } from '../engine.ts';
import { findYamlFiles } from '../dsl/route-loader.ts';

export interface CliExtension extends EngineExtension {
  commands?(program: Command): void;
}

/** Commands of the engine itself that load routes: for them the gateway waits until a tools file is found. */
const ENGINE_COMMANDS = new Set(['run', 'lint', 'test', 'routes', 'eval', 'clients', 'schema', 'test-schema']);

/** `argv` decides whether the gateway loads at once (its commands, help) or on demand. */
export async function loadExtensions(plugins: CliExtension[] = [], argv: string[] = []): Promise<CliExtension[]> {
  const command = argv.slice(2).find((a) => !a.startsWith('-'));
  const gateway = command && ENGINE_COMMANDS.has(command) ? lazyGateway() : await importGateway();
  // plugins first: the sandbox's simulators are up before other extensions prepare
  return [...plugins, gateway];
}

async function importGateway(): Promise<CliExtension> {
  return (await import('../gateway/index.ts')).gatewayExtension();
}

/** A tools document: a YAML file whose top-level key is `tools`. */
const TOOLS_DOC = /^["']?tools["']?\s*:/m;

function hasToolsFiles(routes: string[]): boolean {
  return findYamlFiles(routes).some((f) => TOOLS_DOC.test(readFileSync(f, 'utf8')));
}

/** Stands in for the gateway extension and imports it (once) when a load has tools files. */
function lazyGateway(): CliExtension {
  let real: CliExtension | undefined;
  return {
    name: 'gateway',
    async prepare(ctx: PrepareContext) {
      if (!real && hasToolsFiles(ctx.routes)) real = await importGateway();
      return real?.prepare?.(ctx);
    },
    documents: (ctx) => real?.documents?.(ctx) ?? [],
    start: (engine) => real?.start?.(engine),
    listening: (engine) => real?.listening?.(engine),
    reload: (engine) => real?.reload?.(engine),
  };
}

export function registerCommands(program: Command, extensions: CliExtension[]): void {
  for (const x of extensions) x.commands?.(program);
}
