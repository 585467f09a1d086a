// The JSON Schema of the route DSL, generated from the step and source registries. `engine lint`
// checks each part against the same schemas after resolving {{placeholders}}; editors use
// schemas/route.schema.json on the file as written, so that one also accepts placeholders.

import { INSTANCES_SCHEMA } from './route-instances.ts';
import { STEP_KINDS } from '../steps/registry.ts';
import { SOURCE_KINDS } from '../sources/registry.ts';
import { MATCH_SCHEMA, PROBLEM_SCHEMA } from '../pipeline/error-templates.ts';
import { configWithPlaceholders } from './placeholder-schema.ts';

export const ROUTE_KEYS: Record<string, Record<string, unknown>> = {
  // a template's id names its parameters ({{direction}}); each instance's id is checked as kebab-case at load
  id: {
    type: 'string',
    pattern: '^(?:[a-z0-9]|\\{\\{\\s*[A-Za-z0-9_.-]+\\s*\\}\\})(?:[a-z0-9-]|\\{\\{\\s*[A-Za-z0-9_.-]+\\s*\\}\\})*$',
    description: 'unique route id (kebab-case); in a route template it names a parameter ({{name}})',
  },
  description: { type: 'string', description: 'what the route does, one or two sentences (OpenAPI, engine routes)' },
  connector: { type: 'string', description: 'connector id, e.g. gc-acme-foreign-exchange-connector' },
  instances: INSTANCES_SCHEMA,
  values: {
    type: 'string',
    description:
      "values file whose properties {{placeholders}} resolve from, e.g. foreign-exchange-v1 (default: the `values` of the connector document, connector.yaml, of the route's folder)",
  },
  from: { type: 'object', description: 'the source: exactly one kind', minProperties: 1, maxProperties: 1 },
  steps: { type: 'array', items: { $ref: '#/$defs/step' }, description: 'run in order on each exchange' },
  'on-exception': {
    type: 'array',
    items: { $ref: '#/$defs/handler' },
    description:
      "error handlers, tried in order; the first whose `when` matches maps the error (default: the `on-exception` of the connector document, connector.yaml, of the route's folder; `[]`: none)",
  },
  'output-schema': {
    type: 'string',
    description:
      'JSON Schema file of the answer (OpenAPI, MCP outputSchema); a successful answer that does not match it is answered 502 GC027',
  },
  deadline: {
    type: 'object',
    additionalProperties: false,
    required: ['total'],
    description:
      "the route's total time: vendor calls and event publications end their timeouts with it and a retry that could not start before it is not made (the answer says the deadline was reached)",
    properties: {
      total: {
        anyOf: [{ type: 'integer' }, { type: 'string', pattern: '^-?\\d+$' }],
        description: 'ms from the start of the exchange (>= 1)',
      },
      header: {
        type: 'string',
        description:
          "incoming header giving the caller's own deadline in ms, which lowers the route's (never raises it)",
      },
    },
  },
  'check-output': {
    type: 'boolean',
    default: true,
    description: 'check each successful answer against output-schema (false: the schema only describes the answer)',
  },
};

/** Adds descriptions to the keys of a schema owned elsewhere (annotations only). */
function described(s: { properties: Record<string, object> }, description: string, keys: Record<string, string>) {
  return {
    ...s,
    description,
    properties: Object.fromEntries(
      Object.entries(s.properties).map(([k, v]) => [k, keys[k] ? { description: keys[k], ...v } : v]),
    ),
  };
}

export const HANDLER_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    when: described(
      MATCH_SCHEMA,
      'which errors the handler takes: every listed key must match (all errors when absent)',
      {
        kind: 'error kinds, e.g. [vendor, timeout, connection]',
        status: 'HTTP statuses of the error',
        vendorStatus: 'statuses the vendor answered',
        vendorCode: 'vendor error codes, exactly',
        vendorCodePrefix: 'vendor error codes starting with one of these',
      },
    ),
    template: { type: 'string', description: 'error template file (transforms/<vendor>/...json)' },
    problem: described(PROBLEM_SCHEMA, 'the problem answered, written inline', {
      status: 'HTTP status (default: the status of the error)',
      code: 'platform code, e.g. GC031 (default: the code of the error)',
      title: 'short, human-readable summary (default: the title of the error)',
      detail: 'JSONata for the detail text',
      keepErrors: 'false drops the errors[] (failing fields) of the error from the answer',
    }),
    steps: {
      type: 'array',
      items: { $ref: '#/$defs/step' },
      description:
        'run after the error is mapped, before the answer (e.g. publish a failure event); an error they raise becomes the answer',
    },
    log: {
      enum: ['debug', 'info', 'warn', 'error'],
      description: 'level of the "exchange failed" log line (default: error for a 5xx answer, warn otherwise)',
    },
  },
};

/**
 * A handler of a connector document's `on-exception` (connector.yaml), shared by the routes of its
 * folder: no `steps`, which would run as part of every route while compiled for none of them.
 */
export const DEFAULT_HANDLER_SCHEMA = {
  ...HANDLER_SCHEMA,
  properties: Object.fromEntries(Object.entries(HANDLER_SCHEMA.properties).filter(([k]) => k !== 'steps')),
};

/** The string a kind with a shorthand key accepts in place of its config object. */
function shorthandSchema(k: { kind: string; shorthand?: string }): Record<string, unknown> {
  return { type: 'string', description: `short for \`${k.kind}: { ${k.shorthand}: <this> }\`` };
}

/** `if:` beside a step's kind. */
const IF_SCHEMA = {
  type: 'string',
  description:
    'JSONata condition: the step runs only when it is truthy (a choice with this one branch and no otherwise)',
};

function oneKind(
  kinds: Iterable<{ kind: string; description: string; schema: Record<string, unknown>; shorthand?: string }>,
  guard = false,
) {
  return {
    oneOf: [...kinds].map((k) => ({
      type: 'object',
      additionalProperties: false,
      required: [k.kind],
      properties: {
        [k.kind]: k.shorthand
          ? { description: k.description, anyOf: [shorthandSchema(k), configWithPlaceholders(k.schema)] }
          : { description: k.description, ...configWithPlaceholders(k.schema) },
        ...(guard ? { if: IF_SCHEMA } : {}),
      },
    })),
  };
}

export function routeJsonSchema(): Record<string, unknown> {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'urn:engine:route',
    title: 'Route',
    description:
      'A route: a source (`from`), ordered steps and exception handlers. Generated from the step registry; do not edit.',
    type: 'object',
    additionalProperties: false,
    required: ['id', 'from'],
    properties: { ...ROUTE_KEYS, from: { ...ROUTE_KEYS.from, ...oneKind(SOURCE_KINDS.values()) } },
    $defs: {
      step: oneKind(STEP_KINDS.values(), true),
      handler: configWithPlaceholders(HANDLER_SCHEMA),
    },
  };
}
