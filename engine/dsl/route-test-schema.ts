// The format of route test files (`routes/<connector>/tests/*.yaml`, top-level `tests:`): one
// JSON Schema that lint, the runner and editors (schemas/route-test.schema.json) all use.

const ANY = {};
const STRING_MAP = { type: 'object', additionalProperties: { type: 'string' } };
const SCALAR_MAP = { type: 'object', additionalProperties: { type: ['string', 'number', 'boolean'] } };

const SIGN = {
  type: 'object',
  additionalProperties: false,
  description: 'signs the request as a Standard Webhooks sender (webhook-id, webhook-timestamp, webhook-signature)',
  properties: {
    key: { type: 'string', description: 'environmental key holding the secret, e.g. acme-webhook-secret' },
    secret: { type: 'string', description: 'the secret itself (whsec_<base64> or text), when no key holds it' },
    id: { type: 'string', description: 'webhook-id (default: random per case)' },
    timestamp: { type: 'integer', description: 'webhook-timestamp, unix seconds (default: now)' },
  },
};

const REQUEST = {
  type: 'object',
  additionalProperties: false,
  required: ['path'],
  description: "an HTTP request to the engine's listener (the loaded routes, their webhooks)",
  properties: {
    method: { enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'], default: 'POST' },
    path: { type: 'string', pattern: '^/', description: 'path and optional query string' },
    query: SCALAR_MAP,
    headers: STRING_MAP,
    body: { description: 'JSON body (any value), or a string sent as it is' },
    sign: SIGN,
  },
};

const CALL = {
  type: 'object',
  additionalProperties: false,
  required: ['route'],
  description: 'calls a route in-process, as to-direct and the gateway do',
  properties: {
    route: { type: 'string', description: 'route id' },
    body: ANY,
    headers: STRING_MAP,
    query: STRING_MAP,
    params: STRING_MAP,
    user: {
      type: 'object',
      additionalProperties: false,
      required: ['id'],
      properties: { id: { type: 'string' }, authenticated: { type: 'boolean', default: true } },
    },
  },
};

const MESSAGE = {
  type: 'object',
  additionalProperties: false,
  required: ['route'],
  description: 'delivers one message to a message route (AMQP) without a broker; expect.outcome says how it settles',
  properties: {
    route: { type: 'string', description: 'route id' },
    body: { description: 'the message body (JSON value; a string is parsed as JSON when it is JSON)' },
    id: { type: 'string', description: 'AMQP message id (default: random)' },
    headers: STRING_MAP,
    redelivered: { type: 'boolean', default: false },
  },
};

const ANSWER = {
  type: 'object',
  additionalProperties: false,
  properties: {
    status: { type: 'integer', minimum: 100, maximum: 599, default: 200 },
    body: { description: 'JSON answer (any value); a string is sent as text' },
    headers: SCALAR_MAP,
    delay: { type: 'integer', minimum: 0, description: 'ms before the answer starts' },
    fail: {
      enum: ['reset'],
      description: 'reset: the connection is dropped after the request arrived (the vendor may have seen it)',
    },
  },
};

const STUBS = {
  type: 'object',
  description:
    "per to-http target name (the step's `name`): the answers to give in order; the last one repeats. `eventhub` scripts the event hub (default 202)",
  additionalProperties: { anyOf: [ANSWER, { type: 'array', minItems: 1, items: ANSWER }] },
};

const BODY_EXPECT = {
  body: { description: 'the whole body, compared exactly' },
  'body-contains': {
    description: 'a subset: every key given must match, others are ignored; arrays match item by item',
  },
};

const VENDOR_REQUEST = {
  type: 'object',
  additionalProperties: false,
  properties: {
    method: { type: 'string' },
    path: { type: 'string', description: 'path without the query string' },
    query: { type: 'object', description: 'query parameters, compared exactly' },
    headers: { type: 'object', description: 'a subset of the headers (names in lower case); null means absent' },
    ...BODY_EXPECT,
  },
};

const CALLS = {
  type: 'object',
  description: 'per to-http target name: the number of requests, or the requests themselves in order',
  additionalProperties: {
    anyOf: [
      { type: 'integer', minimum: 0 },
      { type: 'array', items: VENDOR_REQUEST },
      {
        type: 'object',
        additionalProperties: false,
        properties: { count: { type: 'integer', minimum: 0 }, requests: { type: 'array', items: VENDOR_REQUEST } },
      },
    ],
  },
};

const EXPECT = {
  type: 'object',
  additionalProperties: false,
  properties: {
    status: {
      type: 'integer',
      description: "HTTP status of the answer (a call or message: the status the route set or its error's)",
    },
    ...BODY_EXPECT,
    headers: { type: 'object', description: "a subset of the answer's headers (names in lower case)" },
    assert: {
      type: 'array',
      items: { type: 'string' },
      description: 'JSONata predicates over {status, body, headers, calls, events, outcome}; each must be true',
    },
    outcome: {
      enum: ['accepted', 'rejected', 'released'],
      description: 'how a message settles: accepted, rejected (permanent), released (redelivered)',
    },
    calls: CALLS,
    events: {
      type: 'array',
      items: ANY,
      description: 'the CloudEvents the event hub accepted, in order; each a subset (data included)',
    },
    'logs-absent': {
      type: 'array',
      items: { type: 'string', minLength: 1 },
      description: 'text that no log line of the case may contain (a secret, a card number)',
    },
  },
};

const SETTINGS = {
  environment: {
    type: 'string',
    description:
      "values environment (values/environments/<name>.yaml); default: the simulated one (`simulated: true`) of the program's simulators",
  },
  set: {
    ...SCALAR_MAP,
    description:
      'overrides as `--set` gives them: environmental keys and properties (`file:prop` scopes one values file)',
  },
};

const CASE = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'expect'],
  properties: {
    name: { type: 'string', minLength: 1 },
    ...SETTINGS,
    request: REQUEST,
    call: CALL,
    message: MESSAGE,
    stubs: STUBS,
    expect: EXPECT,
  },
};

/** A case's input: exactly one of these (checked in code, for a clearer message than oneOf's). */
export const INPUT_KINDS = ['request', 'call', 'message'] as const;

export const ROUTE_TEST_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['tests'],
  properties: {
    description: { type: 'string' },
    routes: {
      type: 'array',
      items: { type: 'string' },
      description: 'route files or folders to load, relative to the project (default: the folder above tests/)',
    },
    ...SETTINGS,
    simulators: {
      type: 'boolean',
      default: false,
      description: "start the program's simulators; targets without a stub then reach them",
    },
    stubs: {
      ...STUBS,
      description: `${STUBS.description}; every case starts from these, its own stubs replace them per target`,
    },
    tests: { type: 'array', minItems: 1, items: CASE },
  },
};

/** The editor schema (schemas/route-test.schema.json). */
export function routeTestJsonSchema(): Record<string, unknown> {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://integration-platform.local/schemas/route-test.schema.json',
    title: 'Route tests (engine test)',
    ...ROUTE_TEST_SCHEMA,
  };
}

export type Scalar = string | number | boolean;

export interface Answer {
  status?: number;
  body?: unknown;
  headers?: Record<string, Scalar>;
  delay?: number;
  fail?: 'reset';
}
export interface VendorRequestExpect {
  method?: string;
  path?: string;
  query?: Record<string, unknown>;
  headers?: Record<string, unknown>;
  body?: unknown;
  'body-contains'?: unknown;
}
export type CallsExpect = number | VendorRequestExpect[] | { count?: number; requests?: VendorRequestExpect[] };

export interface CaseExpect {
  status?: number;
  body?: unknown;
  'body-contains'?: unknown;
  headers?: Record<string, unknown>;
  assert?: string[];
  outcome?: 'accepted' | 'rejected' | 'released';
  calls?: Record<string, CallsExpect>;
  events?: unknown[];
  'logs-absent'?: string[];
}

export interface TestCase {
  name: string;
  environment?: string;
  set?: Record<string, Scalar>;
  request?: {
    method?: string;
    path: string;
    query?: Record<string, Scalar>;
    headers?: Record<string, string>;
    body?: unknown;
    sign?: { key?: string; secret?: string; id?: string; timestamp?: number };
  };
  call?: {
    route: string;
    body?: unknown;
    headers?: Record<string, string>;
    query?: Record<string, string>;
    params?: Record<string, string>;
    user?: { id: string; authenticated?: boolean };
  };
  message?: { route: string; body?: unknown; id?: string; headers?: Record<string, string>; redelivered?: boolean };
  stubs?: Record<string, Answer | Answer[]>;
  expect: CaseExpect;
}

export interface TestFile {
  description?: string;
  routes?: string[];
  environment?: string;
  set?: Record<string, Scalar>;
  simulators?: boolean;
  stubs?: Record<string, Answer | Answer[]>;
  tests: TestCase[];
}
