// The contract of a step kind: its config schema (which drives lint, the route JSON Schema and
// the docs) beside a compile function that runs once when the route loads.

import type { Exchange } from '../runtime/exchange.ts';
import type { CompileContext } from '../runtime/compile-context.ts';

/** A compiled step. Returns nothing, or a promise when it has to wait. */
export type Step = (ex: Exchange) => void | Promise<void>;

export interface StepKind<C = any> {
  /** the key in the route file: `validate`, `to-http`, ... */
  kind: string;
  /** one line for the DSL reference and the editor schema */
  description: string;
  /** JSON Schema (2020-12) of the config object */
  schema: Record<string, unknown>;
  /**
   * The key a string written in place of the config object stands for: with `file`,
   * `transform: <file>` is `transform: { file: <file> }` (the loader expands it before the check).
   */
  shorthand?: string;
  compile(config: C, ctx: CompileContext): Step;
}

export function defineStep<C>(kind: StepKind<C>): StepKind<C> {
  return kind;
}
