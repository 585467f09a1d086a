// The validators of the engine's own config schemas, compiled ahead of time. From the sources
// there are none: config-check.ts compiles each schema once, when a project first uses it. The
// build (build/bundle.mjs) puts ajv's standalone code for every schema in place of this module
// (engine/dsl/config-standalone.ts writes it), keyed by schemaKey() of the schema it checks.

import type { ValidateFunction } from 'ajv';

export const precompiled: ReadonlyMap<string, ValidateFunction> = new Map();
