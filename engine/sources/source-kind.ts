// The contract of a `from` kind: its config schema beside a bind function that connects a
// compiled route to its trigger (an HTTP path, a queue, a schedule, in-process calls).

import type { CompileContext } from '../runtime/compile-context.ts';
import type { CompiledRoute } from '../runtime/route.ts';

export interface SourceKind<C = any> {
  kind: string;
  description: string;
  schema: Record<string, unknown>;
  /** Checks the config at load (lint); returns what `start` needs. */
  compile(config: C, ctx: CompileContext): unknown;
  /** Connects the route to its trigger when the engine starts. */
  start?(route: CompiledRoute, compiled: unknown, host: SourceHost): Promise<void> | void;
}

/** What sources get from the engine at start. */
export interface SourceHost {
  /** registers an HTTP route on the engine's listener */
  http: import('../http/server.ts').HttpServer;
  services: import('../runtime/compile-context.ts').EngineServices;
}

export function defineSource<C>(kind: SourceKind<C>): SourceKind<C> {
  return kind;
}
