// The contract of a `from` kind: its config schema beside a bind function that connects a
// compiled route to its trigger (an HTTP path, a queue, a schedule, in-process calls).

import type { CompileContext } from '../pipeline/compile-context.ts';
import type { CompiledRoute } from '../pipeline/route.ts';

export interface SourceKind<C = any> {
  kind: string;
  description: string;
  schema: Record<string, unknown>;
  /** Checks the config at load (lint); returns what `start` needs. */
  compile(config: C, ctx: CompileContext): unknown;
  /**
   * Connects the route to its trigger when the engine starts or reloads. A source that keeps
   * something running (a consumer, a schedule) returns a handle: the engine stops it at close or
   * when a reload changes or removes the route.
   */
  start?(route: CompiledRoute, compiled: unknown, host: SourceHost): Promise<SourceHandle | void> | SourceHandle | void;
}

/** What a running source gives the engine. */
export interface SourceHandle {
  /** stops the trigger; work in flight finishes first (within the source's own timeout) */
  stop(): Promise<void> | void;
  /**
   * A reload found the route unchanged: later runs use this newly compiled copy, so nothing of
   * the previous load keeps running behind a route the reload could not tell apart.
   */
  retarget(route: CompiledRoute): void;
}

/** What sources get from the engine at start. */
export interface SourceHost {
  /** registers an HTTP route on the engine's listener (or on the router a reload is building) */
  http: import('../http/server.ts').RouteRegistrar;
  services: import('../pipeline/compile-context.ts').EngineServices;
}

export function defineSource<C>(kind: SourceKind<C>): SourceKind<C> {
  return kind;
}
