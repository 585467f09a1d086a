// The contract of a step kind: its config schema (which drives lint, the route JSON Schema and
// the docs) beside a compile function that runs once when the route loads, and the hooks through
// which the loader, the console and OpenAPI learn what they need of the step without naming it:
// a step kind is one file and one line of registry.ts.

import type { CompileContext } from '../pipeline/compile-context.ts';
import type { Step } from '../pipeline/pipeline.ts';
import type { ClientProfile, Settings } from './client-profile.ts';

export type { Step };

/** A route or client profile a step names, as written in the route file. */
export interface StepReference {
  to: 'route' | 'client';
  name: string;
  /** where the name is, under the step's config (`['route']`) */
  at: (string | number)[];
}

/** A step as the console draws it (console/route-graph.ts, console-ui/diagram.js). */
export interface GraphNode {
  /** the step kind (`to-http`, `choice`, ...) */
  kind: string;
  /** one line naming what it does */
  label: string;
  /** where it sits in the file (`steps[1]`), as span names and diagnostics say it */
  path: string;
  /** what it reaches outside the route */
  target?: { kind: 'vendor' | 'event' | 'route'; name: string };
  /** choice: one per `when` (and `otherwise`); split and loop: their body */
  branches?: { label: string; steps: GraphNode[] }[];
  /** a project file holding what the step runs (a transform's .jsonata), as the route names it */
  file?: string;
  /** where the console opens the step: that file, else the route file at the step's line (route-graph.ts) */
  source?: { file: string; line: number };
}

/** What a step's `graph` hook draws with. */
export interface GraphContext {
  /** a value as written, as text with its {{placeholders}} resolved (masked); undefined if no scalar */
  text(v: unknown): string | undefined;
  /** `s` on one line, its whitespace collapsed: never cut (the console draws a label whole) */
  oneLine(s: string): string;
  /** the nodes of a list of steps nested in this one; `at` is its key path in the config (`when[0].steps`) */
  steps(list: unknown, at: string): GraphNode[];
}

/** The request parameters, signature and statuses a route's steps tell OpenAPI of (http/openapi-route-inputs.ts). */
export interface RequestFacts {
  /** a query, header or path parameter read from the exchange's `query`, `headers` or `params` */
  param(
    target: 'query' | 'headers' | 'params',
    name: string,
  ): {
    required: boolean;
    schema?: Record<string, unknown>;
    description?: string;
  };
  /** the request is authenticated by a webhook signature */
  signed(): void;
  /** a 2xx status the route may answer with besides its source's */
  status(code: number): void;
}

export interface StepKind<C = any> {
  /** the key in the route file: `validate`, `to-http`, ... */
  kind: string;
  /** one line for the DSL reference and the editor schema */
  description: string;
  /** JSON Schema (2020-12) of the config object */
  schema: Record<string, unknown>;
  /**
   * A route file (YAML) using the step, shown under its section of the DSL reference
   * (docs/routes.md) and linted by the tests (test/schema/reference.test.ts).
   */
  example: string;
  /**
   * The key a string written in place of the config object stands for: with `file`,
   * `transform: <file>` is `transform: { file: <file> }` (the loader expands it before the check).
   */
  shorthand?: string;
  compile(config: C, ctx: CompileContext): Step;
  /**
   * The step may name a client profile (`client: <name>`): the loader finds the profile (and
   * says what is wrong with it), and this puts its settings under the step's own before compile.
   */
  withClient?(profile: ClientProfile, config: Settings): Settings;
  /** The routes and client profiles the config (as written, before placeholders) names: lint checks they exist. */
  references?(config: unknown): StepReference[];
  /**
   * The schema of the route's input the step gives when it is a top-level step run whatever the
   * input: the first one found describes the route's request (OpenAPI, gateway tool input schema).
   */
  inputSchema?(config: C, ctx: CompileContext): { schema: Record<string, unknown>; file?: string } | undefined;
  /** How the console draws the step, from its config as written; without it, a box with its kind. */
  graph?(config: Record<string, unknown>, g: GraphContext): Omit<GraphNode, 'kind' | 'path'>;
  /** What the step, as written in the route file, says of the request it reads (OpenAPI). */
  request?(config: unknown, facts: RequestFacts): void;
}

export function defineStep<C>(kind: StepKind<C>): StepKind<C> {
  return kind;
}
