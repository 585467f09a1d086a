// Validators compiled ahead of time: those of the engine's own config schemas (keyed by
// schemaKey() of the schema they check, schemas/config-check.ts) and the JSON Schema 2020-12
// meta-schema's, which checks every schema file of a project (schemas.ts). From the sources there
// are none, and ajv compiles each schema once, when a project first needs it. The build
// (build/bundle.mjs) puts ajv's standalone code in place of this module (cli/precompile.ts writes it).

import type { ValidateFunction } from 'ajv';

export const configValidators: ReadonlyMap<string, ValidateFunction> = new Map();

export const metaSchemaValidator: ValidateFunction | undefined = undefined;
