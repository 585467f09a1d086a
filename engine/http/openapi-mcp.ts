// OpenAPI of the agent tool gateway: POST /mcp carries one JSON-RPC 2.0 message (MCP Streamable
// HTTP, stateless) with the subscription key and an optional bearer JWT; GET and DELETE are 405.

import { problemResponse } from './openapi-common.ts';

type Json = Record<string, unknown>;

export const MCP_SECURITY_SCHEMES: Record<string, Json> = {
  subscriptionKey: {
    type: 'apiKey', in: 'header', name: 'Ocp-Gateway-Subscription-Key',
    description: 'subscription key of the caller, on every /mcp request (primary or secondary key); it decides which tools the caller may use',
  },
  bearerAuth: {
    type: 'http', scheme: 'bearer', bearerFormat: 'JWT',
    description: 'the signed-in user (`sub`); without a token the caller is anonymous, and tools with security `bearer` answer 401',
  },
};

const ID = { type: ['string', 'number'], description: 'request id (a number or a string)' };

export const MCP_SCHEMAS: Record<string, Json> = {
  JsonRpcRequest: {
    type: 'object',
    description: 'one JSON-RPC 2.0 request or notification (no `id`): initialize, notifications/initialized, ping, tools/list, tools/call',
    required: ['jsonrpc', 'method'],
    properties: {
      jsonrpc: { const: '2.0' },
      id: ID,
      method: { type: 'string', examples: ['initialize', 'ping', 'tools/list', 'tools/call'] },
      params: {
        type: 'object',
        description: 'tools/call: `{name, arguments}`; initialize: `{protocolVersion, capabilities, clientInfo}`; tools/list: `{cursor}`',
        properties: {
          name: { type: 'string', description: 'tools/call: the tool' },
          arguments: { type: 'object', description: 'tools/call: the input, checked against the tool\'s input schema' },
          cursor: { type: 'string', description: 'tools/list: the next page' },
          protocolVersion: { type: 'string', description: 'initialize: the revision the client speaks' },
          _meta: { type: 'object' },
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
      code: { type: 'integer', description: '-32700 parse error, -32600 invalid request, -32601 method not found, -32602 invalid params, -32603 internal error, -32000 not allowed' },
      message: { type: 'string' },
      data: {},
    },
  },
};

const rpc = (description: string): Json => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/JsonRpcResponse' } } } });
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

export const MCP_PATHS: Record<string, Json> = {
  '/mcp': {
    post: {
      operationId: 'mcp',
      summary: 'Agent tool gateway (MCP over Streamable HTTP, JSON-RPC 2.0)',
      description: 'One JSON-RPC message per request, answered with one JSON document. Checks in order: Origin, subscription key, MCP-Protocol-Version, bearer token, JSON-RPC shape, rate limits, then the method.',
      tags: ['gateway'],
      // the subscription key always; the bearer token adds the signed-in user
      security: [{ subscriptionKey: [] }, { subscriptionKey: [], bearerAuth: [] }],
      parameters: [
        { $ref: '#/components/parameters/CorrelationId' },
        { name: 'MCP-Protocol-Version', in: 'header', required: false, description: 'the negotiated MCP revision; an unsupported one is a 400', schema: { type: 'string', examples: ['2025-11-25'] } },
      ],
      requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/JsonRpcRequest' } } } },
      responses: {
        '200': rpc('the JSON-RPC answer (also JSON-RPC errors such as an unknown method or invalid params)'),
        '202': { description: 'a notification or a response was accepted; no body' },
        '400': {
          description: 'not JSON, not a JSON-RPC 2.0 object (JSON-RPC error), or an unsupported MCP-Protocol-Version (problem)',
          headers: { 'X-Correlation-Id': { $ref: '#/components/headers/CorrelationId' } },
          content: {
            'application/json': { schema: { $ref: '#/components/schemas/JsonRpcResponse' } },
            'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } },
          },
        },
        '401': problemResponse('missing or invalid subscription key, or a missing or refused bearer token', { 'WWW-Authenticate': { description: 'Bearer challenge when a token is missing or refused', schema: { type: 'string' } } }),
        '403': problemResponse('the Origin is not allowed'),
        '406': problemResponse('Accept does not allow application/json'),
        '413': { $ref: '#/components/responses/PayloadTooLarge' },
        '415': { $ref: '#/components/responses/UnsupportedMediaType' },
        '429': { $ref: '#/components/responses/TooManyRequests' },
        '503': problemResponse('the shared rate limit store is unavailable and the gateway refuses what it cannot count', { 'Retry-After': { description: 'seconds to wait', schema: { type: 'integer' } } }),
      },
    },
    get: notAllowed('mcp-get', 'GET'),
    delete: notAllowed('mcp-delete', 'DELETE'),
  },
};
