// The extensions the `engine` command registers and their CLI commands, in one place: the ones
// the program passes in (bin/engine.js adds its embedded simulators, which the engine library
// does not know: test/engine/layering.test.ts, test/engine/no-vendor.test.ts), then the agent
// tool gateway, then the browser console (engine/console; it shows what the others registered).
// The gateway's code (and the JWT library it brings) loads only when a route folder being loaded
// has a tools file, or when one of its own commands runs; the console's only when it is enabled.

import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { EngineExtension, PrepareContext } from '../engine.ts';
import type { CliExtension, CommandContext } from '../cli-extension.ts';
import { findYamlFiles } from '../dsl/route-loader.ts';
import { consoleEnabled } from '../console/enabled.ts';

export type { CliExtension };

/** The registered extension that simulates an environment, if any. */
export function simulating<T extends EngineExtension>(extensions: T[]): T | undefined {
  return extensions.find((x) => x.simulation);
}

/** Commands of the engine itself that load routes: for them the gateway waits until a tools file is found. */
const ENGINE_COMMANDS = new Set(['run', 'lint', 'test', 'routes', 'eval', 'clients', 'schema', 'test-schema']);

/** `argv` decides whether the gateway loads at once (its commands, help) or on demand. */
export async function loadExtensions(plugins: CliExtension[] = [], argv: string[] = []): Promise<CliExtension[]> {
  const command = argv.slice(2).find((a) => !a.startsWith('-'));
  const gateway = command && ENGINE_COMMANDS.has(command) ? lazyGateway() : await importGateway();
  // plugins first: the program's simulators are up before other extensions prepare; the console
  // last, as it shows what the others registered (tools, panels)
  const list: CliExtension[] = [...plugins, gateway];
  list.push(lazyConsole(() => list));
  return list;
}

async function importGateway(): Promise<CliExtension> {
  return (await import('../gateway/index.ts')).gatewayExtension();
}

/** A tools document: a YAML file whose top-level key is `tools`. */
const TOOLS_DOC = /^["']?tools["']?\s*:/m;

function hasToolsFiles(routes: string[]): boolean {
  return findYamlFiles(routes).some((f) => TOOLS_DOC.test(readFileSync(f, 'utf8')));
}

/**
 * Stands in for the gateway extension and imports it (once) when a load has tools files. Other
 * properties (the console reads the gateway's tools) are the real extension's once it loaded.
 */
function lazyGateway(): CliExtension {
  let real: CliExtension | undefined;
  const stub: CliExtension = {
    name: 'gateway',
    // the paths the gateway serves (gateway/index.ts GATEWAY_PATHS), known without loading it
    paths: ['/mcp', '/.well-known/oauth-protected-resource'],
    async prepare(ctx: PrepareContext) {
      if (!real && hasToolsFiles(ctx.routes)) real = await importGateway();
      return real?.prepare?.(ctx);
    },
    documents: (ctx) => real?.documents?.(ctx) ?? [],
    start: (engine) => real?.start?.(engine),
    listening: (engine) => real?.listening?.(engine),
    reload: (engine) => real?.reload?.(engine),
  };
  return forwarding(stub, () => real);
}

/** Stands in for the console and imports it when `prepare` finds it enabled (engine/console/enabled.ts). */
function lazyConsole(extensions: () => CliExtension[]): CliExtension {
  let real: CliExtension | undefined;
  const stub: CliExtension = {
    name: 'console',
    // the paths the console serves (console/index.ts CONSOLE_PATHS), known without loading it
    paths: ['/console'],
    async prepare(ctx: PrepareContext) {
      if (ctx.lintOnly || !consoleEnabled(ctx.services.settings.console.enabled, ctx.simulated)) return;
      real ??= (await import('../console/index.ts')).consoleExtension(extensions);
      return real.prepare?.(ctx);
    },
    start: (engine) => real?.start?.(engine),
    listening: (engine) => real?.listening?.(engine),
    reload: (engine) => real?.reload?.(engine),
  };
  return forwarding(stub, () => real);
}

/** `stub`'s own properties, else those of the real extension once it loaded. */
function forwarding(stub: CliExtension, real: () => CliExtension | undefined): CliExtension {
  return new Proxy(stub, {
    get: (t, k, r) => (k in t ? Reflect.get(t, k, r) : (real() as Record<PropertyKey, unknown> | undefined)?.[k]),
  });
}

export function registerCommands(program: Command, extensions: CliExtension[]): void {
  const ctx: CommandContext = { simulatedEnvironment: simulating(extensions)?.simulation?.environment };
  for (const x of extensions) x.commands?.(program, ctx);
}
