// The one registry of step kinds. A new kind is one file beside this one, added here.

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

export const STEP_KINDS: ReadonlyMap<string, StepKind> = new Map(
  [
    validate, transform, set, toHttp, toEventhub, choice, split, fail, log, toDirect, verifySignature, dedupe, loop,
  ].map((k) => [k.kind, k as StepKind]),
);
