// The JSON Schema of the route DSL, generated from the step and source registries. `engine lint`
// checks each part against the same schemas; editors use schemas/route.schema.json.

import { STEP_KINDS } from '../steps/registry.ts';
import { SOURCE_KINDS } from '../sources/registry.ts';
import { MATCH_SCHEMA, PROBLEM_SCHEMA } from '../runtime/error-templates.ts';

export const ROUTE_KEYS: Record<string, Record<string, unknown>> = {
  id: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]*$', description: 'unique route id (kebab-case)' },
  description: { type: 'string' },
  connector: { type: 'string', description: 'connector id, e.g. gc-hubvendor-foreign-exchange-connector' },
  values: { type: 'string', description: 'values file whose properties {{placeholders}} resolve from, e.g. foreign-exchange-v1' },
  from: { type: 'object', description: 'the source: exactly one kind', minProperties: 1, maxProperties: 1 },
  steps: { type: 'array', items: { $ref: '#/$defs/step' } },
  'on-exception': { type: 'array', items: { $ref: '#/$defs/handler' } },
  'output-schema': { type: 'string', description: 'JSON Schema file of the answer (OpenAPI, MCP outputSchema)' },
};

export const HANDLER_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    when: MATCH_SCHEMA,
    template: { type: 'string', description: 'error template file (transforms/<vendor>/...json)' },
    problem: PROBLEM_SCHEMA,
    steps: { type: 'array', items: { $ref: '#/$defs/step' } },
    log: { enum: ['debug', 'info', 'warn', 'error'] },
  },
};

function oneKind(kinds: Iterable<{ kind: string; description: string; schema: Record<string, unknown> }>) {
  return {
    oneOf: [...kinds].map((k) => ({
      type: 'object',
      additionalProperties: false,
      required: [k.kind],
      properties: { [k.kind]: { description: k.description, ...k.schema } },
    })),
  };
}

export function routeJsonSchema(): Record<string, unknown> {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'urn:engine:route',
    title: 'Route',
    description: 'A route: a source (`from`), ordered steps and exception handlers. Generated from the step registry; do not edit.',
    type: 'object',
    additionalProperties: false,
    required: ['id', 'from'],
    properties: { ...ROUTE_KEYS, from: { ...ROUTE_KEYS.from, ...oneKind(SOURCE_KINDS.values()) } },
    $defs: {
      step: oneKind(STEP_KINDS.values()),
      handler: HANDLER_SCHEMA,
    },
  };
}
