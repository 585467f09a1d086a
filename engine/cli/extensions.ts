// Extensions of the engine (the agent tool gateway) and their CLI commands, in one place.

import type { Command } from 'commander';
import type { EngineExtension } from '../engine.ts';

export interface CliExtension extends EngineExtension {
  commands?(program: Command): void;
}

export async function loadExtensions(): Promise<CliExtension[]> {
  const list: CliExtension[] = [];
  // [extensions:gateway] push the gateway extension here
  list.push((await import('../gateway/index.ts')).gatewayExtension());
  return list;
}

export function registerCommands(program: Command, extensions: CliExtension[]): void {
  for (const x of extensions) x.commands?.(program);
}
