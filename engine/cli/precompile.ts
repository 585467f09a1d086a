// Build time only (build/bundle.mjs; the engine never imports it): ajv's standalone code for every
// config schema the engine checks a project against and for the JSON Schema 2020-12 meta-schema,
// as the module that replaces schemas/precompiled.ts in the build. A start then loads these
// validators as code instead of compiling their schemas.

import standaloneCode from 'ajv/dist/standalone/index.js';
import { createAjv, META_SCHEMA_ID } from '../schemas/schemas.ts';
import { TEMPLATE_SCHEMA } from '../pipeline/error-templates.ts';
import { engineSettingsSchema } from '../config/engine-settings.ts';
import { STEP_KINDS } from '../steps/registry.ts';
import { SOURCE_KINDS } from '../sources/registry.ts';
import { ROUTE_TEST_SCHEMA } from '../dsl/route-test-schema.ts';
import { TOOLS_FILE_SCHEMA } from '../gateway/tools.ts';
import { HANDLER_SCHEMA, DEFAULT_HANDLER_SCHEMA } from '../dsl/route-schema.ts';
import { LOAD_SCHEMA, CLIENT_SCHEMA, CLIENT_TEMPLATES_SCHEMA } from '../dsl/clients.ts';
import { fullSchema, schemaKey } from '../schemas/config-check.ts';

type Schema = Record<string, unknown>;

/** Every schema checkConfig() is called with: the step and source kinds, handlers, templates, files of other kinds. */
function configSchemas(): Schema[] {
  return [
    ...[...STEP_KINDS.values()].map((k) => k.schema),
    ...[...SOURCE_KINDS.values()].map((k) => k.schema),
    HANDLER_SCHEMA,
    DEFAULT_HANDLER_SCHEMA,
    TEMPLATE_SCHEMA,
    LOAD_SCHEMA,
    CLIENT_SCHEMA,
    CLIENT_TEMPLATES_SCHEMA,
    ROUTE_TEST_SCHEMA,
    TOOLS_FILE_SCHEMA,
    engineSettingsSchema as unknown as Schema,
  ];
}

/**
 * An ES module exporting `configValidators` (schemaKey() -> validator, for every config schema)
 * and `metaSchemaValidator`, the same shape as schemas/precompiled.ts.
 */
export function standaloneModule(schemas: Schema[] = configSchemas()): string {
  const ajv = createAjv({ validateSchema: false, standalone: true });
  const exports: Record<string, string> = { metaSchemaValidator: META_SCHEMA_ID };
  for (const schema of schemas) {
    const full = fullSchema(schema);
    const key = schemaKey(full);
    if (exports[`v${key}`]) continue;
    ajv.addSchema(full, key);
    exports[`v${key}`] = key;
  }
  const code = (standaloneCode as unknown as typeof standaloneCode.default)(ajv, exports);
  const entries = Object.entries(exports)
    .filter(([name]) => name !== 'metaSchemaValidator')
    .map(([name, key]) => `[${JSON.stringify(key)}, ${name}]`);
  return `${code}\nexport const configValidators = new Map([${entries.join(', ')}]);\n`;
}
