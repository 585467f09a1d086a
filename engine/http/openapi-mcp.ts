// OpenAPI of the agent tool gateway: POST /mcp carries one JSON-RPC 2.0 message (MCP Streamable
// HTTP, stateless; 2026-07-28 with its request headers, or 2025-11-25 and earlier) with the
// subscription key and an optional bearer JWT; GET and DELETE are 405. The protected resource
// metadata (RFC 9728) tells agent clients where to get a token.

import { problemResponse } from './openapi-common.ts';

type Json = Record<string, unknown>;

export const MCP_SECURITY_SCHEMES: Record<string, Json> = {
  subscriptionKey: {
    type: 'apiKey',
    in: 'header',
    name: 'Ocp-Gateway-Subscription-Key',
    description:
      'subscription key of the caller, on every /mcp request (primary or secondary key); it decides which tools the caller may use',
  },
  bearerAuth: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      'the signed-in user (`sub`); without a token the caller is anonymous, and tools with security `bearer` answer 401',
  },
};

const ID = { type: ['string', 'number'], description: 'request id (a number or a string)' };

export const MCP_SCHEMAS: Record<string, Json> = {
  JsonRpcRequest: {
    type: 'object',
    description:
      'one JSON-RPC 2.0 request or notification (no `id`). 2026-07-28: server/discover, tools/list, tools/call, each with `params._meta` (protocol version, client capabilities); 2025-11-25 and earlier: initialize, notifications/initialized, ping, tools/list, tools/call',
    required: ['jsonrpc', 'method'],
    properties: {
      jsonrpc: { const: '2.0' },
      id: ID,
      method: { type: 'string', examples: ['server/discover', 'tools/list', 'tools/call', 'initialize', 'ping'] },
      params: {
        type: 'object',
        description:
          'tools/call: `{name, arguments}`; initialize: `{protocolVersion, capabilities, clientInfo}`; tools/list: `{cursor}`',
        properties: {
          name: { type: 'string', description: 'tools/call: the tool' },
          arguments: { type: 'object', description: "tools/call: the input, checked against the tool's input schema" },
          cursor: { type: 'string', description: 'tools/list: the next page' },
          protocolVersion: { type: 'string', description: 'initialize: the revision the client speaks' },
          _meta: {
            type: 'object',
            description: '2026-07-28: required on every request',
            properties: {
              'io.modelcontextprotocol/protocolVersion': {
                type: 'string',
                description: 'equal to the MCP-Protocol-Version header',
                examples: ['2026-07-28'],
              },
              'io.modelcontextprotocol/clientCapabilities': { type: 'object' },
              'io.modelcontextprotocol/clientInfo': {
                type: 'object',
                properties: { name: { type: 'string' }, version: { type: 'string' } },
              },
            },
          },
        },
      },
    },
  },
  JsonRpcResponse: {
    type: 'object',
    description: 'the answer to a request: `result`, or `error` (a failed tool call is a result with `isError: true`)',
    required: ['jsonrpc', 'id'],
    properties: {
      jsonrpc: { const: '2.0' },
      id: { type: ['string', 'number', 'null'] },
      result: { type: 'object' },
      error: { $ref: '#/components/schemas/JsonRpcError' },
    },
    oneOf: [{ required: ['result'] }, { required: ['error'] }],
  },
  JsonRpcError: {
    type: 'object',
    required: ['code', 'message'],
    properties: {
      code: {
        type: 'integer',
        description:
          '-32700 parse error, -32600 invalid request, -32601 method not found, -32602 invalid params, -32603 internal error, -32020 header mismatch, -32022 unsupported protocol version (data: supported, requested), -32000 not allowed',
      },
      message: { type: 'string' },
      data: {},
    },
  },
};

const rpc = (description: string): Json => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/JsonRpcResponse' } } },
});
const notAllowed = (operationId: string, method: string): Json => ({
  operationId,
  summary: `${method} is not supported: the gateway is stateless and answers POST only`,
  tags: ['gateway'],
  security: [],
  responses: {
    '405': {
      description: 'method not allowed',
      headers: { Allow: { description: 'POST', schema: { const: 'POST' } } },
      content: { 'application/json': { schema: { $ref: '#/components/schemas/JsonRpcResponse' } } },
    },
  },
});

const hdr = (name: string, description: string, example: string): Json => ({
  name,
  in: 'header',
  required: false,
  description,
  schema: { type: 'string', examples: [example] },
});

const resourceMetadata = (operationId: string, summary: string): Json => ({
  get: {
    operationId,
    summary,
    description:
      'OAuth 2.0 Protected Resource Metadata (RFC 9728) of /mcp: resource identifier (gateway.oauth.resource, or derived from the request), authorization servers, bearer methods, scopes when configured. No key needed. Every 401 from /mcp names this document in `WWW-Authenticate: Bearer resource_metadata="..."`.',
    tags: ['gateway'],
    security: [],
    responses: {
      '200': {
        description: 'the metadata',
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['resource', 'authorization_servers', 'bearer_methods_supported'],
              properties: {
                resource: { type: 'string', format: 'uri', examples: ['https://api.bank.example/mcp'] },
                authorization_servers: { type: 'array', items: { type: 'string', format: 'uri' } },
                bearer_methods_supported: { type: 'array', items: { const: 'header' } },
                scopes_supported: { type: 'array', items: { type: 'string' } },
                resource_name: { type: 'string' },
              },
            },
          },
        },
      },
      '404': problemResponse('no resource identifier can be told from the request (set gateway.oauth.resource)'),
    },
  },
});

export const MCP_PATHS: Record<string, Json> = {
  '/.well-known/oauth-protected-resource/mcp': resourceMetadata(
    'mcp-resource-metadata',
    'Protected resource metadata of /mcp (path-suffixed form)',
  ),
  '/.well-known/oauth-protected-resource': resourceMetadata(
    'mcp-resource-metadata-root',
    'Protected resource metadata of /mcp (root form)',
  ),
  '/mcp': {
    post: {
      operationId: 'mcp',
      summary: 'Agent tool gateway (MCP over Streamable HTTP, JSON-RPC 2.0)',
      description:
        'One JSON-RPC message per request, answered with one JSON document. The MCP-Protocol-Version header chooses the revision: 2026-07-28 (per-request `_meta`, the Mcp-Method and Mcp-Name headers, checked against the body), or 2025-11-25 and earlier (initialize first; no header means 2025-03-26). Checks in order: Origin, subscription key, MCP-Protocol-Version, (2026-07-28) method and name headers, bearer token, tool, rate limits, JSON-RPC shape, (2026-07-28) headers against the body, then the method.',
      tags: ['gateway'],
      // the subscription key always; the bearer token adds the signed-in user
      security: [{ subscriptionKey: [] }, { subscriptionKey: [], bearerAuth: [] }],
      parameters: [
        { $ref: '#/components/parameters/CorrelationId' },
        hdr(
          'MCP-Protocol-Version',
          'the revision of the request: 2026-07-28, or 2025-11-25, 2025-06-18, 2025-03-26 (absent: 2025-03-26); another is 400 with -32022 and the supported list',
          '2026-07-28',
        ),
        hdr('Mcp-Method', "2026-07-28: required, the body's `method`", 'tools/call'),
        hdr(
          'Mcp-Name',
          "2026-07-28: required for tools/call, the body's `params.name` (`=?base64?...?=` for names that are no plain ASCII). A tools/call also carries `Mcp-Param-{Name}` for every argument given whose input schema property has `x-mcp-header: {Name}` (see tools/list), equal to the argument",
          'getExchangeRate',
        ),
      ],
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/JsonRpcRequest' } } },
      },
      responses: {
        '200': rpc('the JSON-RPC answer (also JSON-RPC errors such as an unknown method or invalid params)'),
        '202': { description: 'a notification or a response was accepted; no body' },
        '404': rpc('2026-07-28: a method this server does not implement (-32601)'),
        '400': {
          description:
            'not JSON, not a JSON-RPC 2.0 object, an unsupported MCP-Protocol-Version (-32022), (2026-07-28) headers that do not match the body (-32020) or a request without the required `_meta` (-32602)',
          headers: { 'X-Correlation-Id': { $ref: '#/components/headers/CorrelationId' } },
          content: {
            'application/json': { schema: { $ref: '#/components/schemas/JsonRpcResponse' } },
            'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } },
          },
        },
        '401': problemResponse('missing or invalid subscription key, or a missing or refused bearer token', {
          'WWW-Authenticate': {
            description:
              'Bearer challenge naming the protected resource metadata (`resource_metadata`), with `error` (invalid_token, invalid_request) when credentials were sent',
            schema: {
              type: 'string',
              examples: [
                'Bearer resource_metadata="https://api.bank.example/.well-known/oauth-protected-resource/mcp"',
              ],
            },
          },
        }),
        '403': problemResponse('the Origin is not allowed'),
        '406': problemResponse('Accept does not allow application/json'),
        '413': { $ref: '#/components/responses/PayloadTooLarge' },
        '415': { $ref: '#/components/responses/UnsupportedMediaType' },
        '429': { $ref: '#/components/responses/TooManyRequests' },
        '503': problemResponse(
          'the shared rate limit store is unavailable and the gateway refuses what it cannot count',
          { 'Retry-After': { description: 'seconds to wait', schema: { type: 'integer' } } },
        ),
      },
    },
    get: notAllowed('mcp-get', 'GET'),
    delete: notAllowed('mcp-delete', 'DELETE'),
  },
};
