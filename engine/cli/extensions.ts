// The extensions the `engine` command registers and their CLI commands, in one place: the ones
// the program passes in (bin/engine.js adds the embedded sandbox, which the engine library does
// not know: test/engine/layering.test.ts), then the agent tool gateway, then the browser console
// (engine/console; it shows what the others registered).

import type { Command } from 'commander';
import type { EngineExtension } from '../engine.ts';

export interface CliExtension extends EngineExtension {
  commands?(program: Command): void;
}

export async function loadExtensions(plugins: CliExtension[] = []): Promise<CliExtension[]> {
  // plugins first: the sandbox's simulators are up before other extensions prepare; the console
  // last, as it shows what the others registered (tools, panels)
  const list: CliExtension[] = [...plugins, (await import('../gateway/index.ts')).gatewayExtension()];
  list.push((await import('../console/index.ts')).consoleExtension(() => list));
  return list;
}

export function registerCommands(program: Command, extensions: CliExtension[]): void {
  for (const x of extensions) x.commands?.(program);
}
