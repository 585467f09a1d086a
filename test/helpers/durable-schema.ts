// Points an engine's durable store at a PostgreSQL schema of a test's own (the machine's
// PostgreSQL, test/store/helpers.ts): tests whose routes fail for good record failed exchanges,
// which must not land in the project's embedded store (.engine/store, one process at a time).

import type { EngineExtension } from '../../engine/engine.ts';
import { STORE_DEFAULTS } from '../../engine/config/engine-settings.ts';
import { PG_URL } from '../store/helpers.ts';

/** An extension setting engine.store.postgres to `schema` before the routes load. */
export function durableSchemaExtension(schema: string): EngineExtension {
  return {
    name: 'test-durable-schema',
    prepare({ services }) {
      services.settings.store = {
        ...(services.settings.store ?? { inFlightTimeout: STORE_DEFAULTS.inFlightTimeout }),
        postgres: { url: PG_URL, schema, poolSize: 2 },
      };
    },
  };
}
