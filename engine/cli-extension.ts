// An engine extension that also adds commands to the `engine` program. Beside engine.ts, below
// the extensions (gateway, console) that implement it and the CLI (cli/extensions.ts) that registers them.

import type { Command } from 'commander';
import type { EngineExtension } from './engine.ts';

export interface CliExtension extends EngineExtension {
  commands?(program: Command, ctx: CommandContext): void;
}

export interface CommandContext {
  /** the environment of the registered simulators (EngineExtension.simulation): commands that need one default to it */
  simulatedEnvironment?: string;
}
