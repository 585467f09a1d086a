// The one registry of step kinds. A new kind is one file beside this one (its StepKind says all
// the loader, lint, console, OpenAPI and the docs need of it), added here.

import type { StepKind } from './step-kind.ts';
import validate from './validate.ts';
import transform from './transform.ts';
import set from './set.ts';
import toHttp from './to-http.ts';
import toEventhub from './to-eventhub.ts';
import choice from './choice.ts';
import split from './split.ts';
import fail from './fail.ts';
import log from './log.ts';
import toDirect from './to-direct.ts';
import verifySignature from './verify-signature.ts';
import dedupe from './dedupe.ts';
import loop from './loop.ts';

// process-wide on purpose: step kinds are code (registerStepKind adds one), not an engine's settings
const kinds = new Map(
  [validate, transform, set, toHttp, toEventhub, choice, split, fail, log, toDirect, verifySignature, dedupe, loop].map(
    (k) => [k.kind, k as StepKind],
  ),
);

export const STEP_KINDS: ReadonlyMap<string, StepKind> = kinds;

/**
 * Adds a step kind defined outside this list (a test's, from a module of its own); returns what
 * removes it again. The shipped kinds are the list above.
 */
export function registerStepKind(kind: StepKind): () => void {
  if (kinds.has(kind.kind)) throw new Error(`step kind '${kind.kind}' is already registered`);
  kinds.set(kind.kind, kind);
  return () => {
    kinds.delete(kind.kind);
  };
}
