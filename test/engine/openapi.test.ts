// /openapi.json of the whole shipped project: a valid OpenAPI 3.1 document (swagger-parser) that
// covers the outside contract, plus the schema hoisting that makes it valid.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import SwaggerParser from '@apidevtools/swagger-parser';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { SchemaComponents } from '../../engine/http/openapi-schemas.ts';
import { createAjv } from '../../engine/schemas/schemas.ts';
import { batch, entry } from '../achvendor-batch-payment/fixtures.ts';

// The outside contract (the endpoints docs/connectors/ documents): method and path of every endpoint
const CONTRACT: [string, string][] = [
  ['post', '/payments/payment-orders'],
  ['put', '/payments/{externalReferenceNo}'],
  ['post', '/payments/{externalReferenceNo}/cancel'],
  ['post', '/payments/bank-directory'],
  ['post', '/foreign-exchange/exchange-rates'],
  ['post', '/customer-screening'],
  ['post', '/customer-screening/config-monitoring'],
  ['post', '/screening-assessment/match-profiles/dispositions'],
  ['post', '/screening-assessment/match-profiles/suppression'],
  ['post', '/webhooks/screening'],
  ['post', '/batch-payments/credit-batches'],
  ['post', '/batch-payments/debit-batches'],
  ['post', '/batch-payments/{batchId}/cancel'],
  ['post', '/webhooks/batch/statusupdate'],
  ['post', '/webhooks/payment/paymentupdate'],
  ['post', '/mcp'],
  ['get', '/mcp'],
  ['delete', '/mcp'],
  ['get', '/health/live'],
  ['get', '/health/ready'],
  ['get', '/metrics'],
  ['get', '/openapi.json'],
];
const SIGNED = ['/webhooks/screening', '/webhooks/batch/statusupdate', '/webhooks/payment/paymentupdate'];
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

let e: TestEngine;
let doc: any;
beforeAll(async () => {
  e = await startTestEngine();
  const r = await e.request('GET', '/openapi.json');
  expect(r.status).toBe(200);
  doc = r.body;
});
afterAll(async () => {
  await e?.close();
});

const operations = () =>
  Object.entries<any>(doc.paths).flatMap(([path, item]) =>
    Object.entries<any>(item)
      .filter(([m]) => METHODS.includes(m))
      .map(([method, op]) => ({ path, method, op })),
  );

/** Every `key` anywhere in the document, with where it is. */
function findKeys(node: unknown, keys: Set<string>, at = '#', out: string[] = []): string[] {
  if (!node || typeof node !== 'object') return out;
  for (const [k, v] of Object.entries(node)) {
    if (keys.has(k)) out.push(`${at}/${k}`);
    findKeys(v, keys, `${at}/${k}`, out);
  }
  return out;
}

describe('GET /openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toBe('3.1.0');
    // swagger-parser resolves every $ref and checks the document against the OpenAPI 3.1 schema
    await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toBeDefined();
    // route schemas: $defs hoisted, $id/$schema gone, no ajv-only keywords
    expect(findKeys(doc.paths, new Set(['$defs', 'definitions', '$id', '$schema', 'errorMessage']))).toEqual([]);
    expect(findKeys(doc.components, new Set(['$defs', 'definitions', '$id', '$schema', 'errorMessage']))).toEqual([]);
    const refs = JSON.stringify(doc).match(/"\$ref":"[^"]*"/g) ?? [];
    expect(refs.filter((r) => !r.startsWith('"$ref":"#/components/'))).toEqual([]);
  });

  it('names the engine in servers', () => {
    expect(doc.servers).toEqual([expect.objectContaining({ url: e.url })]);
  });

  it('covers every method and path of the outside contract, with unique operationIds', () => {
    for (const [method, path] of CONTRACT)
      expect(doc.paths[path]?.[method], `${method.toUpperCase()} ${path}`).toBeDefined();
    const ids = operations().map((o) => o.op.operationId);
    expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('has the parameters the routes read', () => {
    const names = (op: any) =>
      op.parameters
        .map((p: any) => (p.$ref ? doc.components.parameters[p.$ref.split('/').pop()] : p))
        .map((p: any) => `${p.in}:${p.name}${p.required ? '!' : ''}`);
    for (const path of [
      '/payments/payment-orders',
      '/batch-payments/credit-batches',
      '/batch-payments/debit-batches',
    ]) {
      const p = doc.paths[path].post.parameters.find((x: any) => x.name === 'validate_only');
      expect(p, path).toMatchObject({ in: 'query', required: false, schema: { enum: ['true', 'false'] } });
    }
    expect(names(doc.paths['/payments/payment-orders'].post)).toContain('header:idempotency-key');
    expect(names(doc.paths['/payments/{externalReferenceNo}/cancel'].post)).toEqual(
      expect.arrayContaining(['path:externalReferenceNo!', 'query:cancellationType']),
    );
    expect(names(doc.paths['/batch-payments/{batchId}/cancel'].post)).toContain('path:batchId!');
    expect(names(doc.paths['/payments/{externalReferenceNo}'].put)).toContain('path:externalReferenceNo!');
    for (const path of SIGNED) {
      const op = doc.paths[path].post;
      expect(names(op), path).toEqual(
        expect.arrayContaining(['header:webhook-id!', 'header:webhook-timestamp!', 'header:webhook-signature!']),
      );
      expect(op.responses['401'], path).toBeDefined();
      expect(op.responses['200'].content['application/json'].schema, path).toBeDefined();
    }
    // the signature headers belong to the webhooks only
    expect(names(doc.paths['/payments/payment-orders'].post).some((n: string) => n.includes('webhook-'))).toBe(false);
  });

  it('hoists request and response schemas into components', async () => {
    const body = doc.paths['/batch-payments/credit-batches'].post.requestBody.content['application/json'].schema;
    expect(body).toEqual({ $ref: expect.stringMatching(/^#\/components\/schemas\//) });
    // credit and debit share one component
    expect(doc.paths['/batch-payments/debit-batches'].post.requestBody.content['application/json'].schema).toEqual(
      body,
    );
    const batchSchema = doc.components.schemas[body.$ref.split('/').pop()];
    expect(batchSchema.properties.entries.items.$ref).toMatch(/^#\/components\/schemas\/\w+Entry$/);
    // the published schema, refs resolved, judges a batch as the route does (the entry refs still point at the entry)
    const deref: any = await SwaggerParser.dereference(structuredClone(doc));
    const published = createAjv().compile(
      deref.paths['/batch-payments/credit-batches'].post.requestBody.content['application/json'].schema,
    );
    const route = createAjv().compile(e.routes.find((r) => r.id === 'submit-credit-batch')!.meta.inputSchema!);
    const samples = [
      batch(),
      batch({}, [entry(), entry({ amount_minor: 'ten' })]),
      batch({}, [entry({ receiving_dfi_routing: 42 })]),
      { entries: [42] },
    ];
    expect(samples.map((b) => published(b))).toEqual(samples.map((b) => route(b)));
    expect(samples.map((b) => published(b))).toContain(true);
    expect(samples.map((b) => published(b))).toContain(false);
    const fx = doc.paths['/foreign-exchange/exchange-rates'].post;
    expect(
      doc.components.schemas[fx.responses['200'].content['application/json'].schema.$ref.split('/').pop()].properties
        .middleRate,
    ).toBeDefined();
  });

  it('answers errors as RFC 9457 problem details with one Problem schema', () => {
    for (const { path, method, op } of operations()) {
      // GET /health/ready answers 503 with the readiness document
      if (op.tags?.includes('operations')) continue;
      const errors = Object.entries<any>(op.responses).filter(([s]) => /^[45]/.test(s));
      for (const [status, res] of errors) {
        const r = res.$ref ? doc.components.responses[res.$ref.split('/').pop()] : res;
        const problem = r.content?.['application/problem+json'];
        // the gateway's 405 and JSON-RPC errors are JSON-RPC documents, not problems
        if (path === '/mcp' && (status === '405' || !problem)) continue;
        expect(problem?.schema, `${method} ${path} ${status}`).toEqual({ $ref: '#/components/schemas/Problem' });
        expect(r.headers?.['X-Correlation-Id'], `${method} ${path} ${status}`).toBeDefined();
      }
      // bad input, a body over the limit, a body that is not JSON
      if (method === 'post')
        expect(Object.keys(op.responses), `${method} ${path}`).toEqual(expect.arrayContaining(['400', '413', '415']));
    }
    const problem = doc.components.schemas.Problem;
    expect(problem.required).toEqual(['type', 'title', 'status']);
    expect(Object.keys(problem.properties)).toEqual(
      expect.arrayContaining(['type', 'title', 'status', 'detail', 'instance', 'code', 'correlationId', 'errors']),
    );
  });

  it('describes the gateway: JSON-RPC over POST /mcp with the subscription key and the bearer token', () => {
    expect(doc.components.securitySchemes.subscriptionKey).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'Ocp-Gateway-Subscription-Key',
    });
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
    });
    const mcp = doc.paths['/mcp'];
    expect(mcp.post.security).toEqual([{ subscriptionKey: [] }, { subscriptionKey: [], bearerAuth: [] }]);
    expect(mcp.post.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/JsonRpcRequest',
    });
    expect(mcp.post.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/JsonRpcResponse',
    });
    expect(mcp.post.responses['401'].content['application/problem+json']).toBeDefined();
    expect(Object.keys(mcp.get.responses)).toEqual(['405']);
    expect(Object.keys(mcp.delete.responses)).toEqual(['405']);
    // security applies where it is checked: the unified API routes declare none
    expect(doc.paths['/foreign-exchange/exchange-rates'].post.security).toEqual([]);
  });
});

describe('SchemaComponents', () => {
  it('hoists $defs without collisions, rewrites refs and drops keywords that are not JSON Schema', () => {
    const c = new SchemaComponents(['Problem']);
    const a = {
      $id: 'urn:x:a',
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { e: { $ref: '#/$defs/entry' }, self: { $ref: '#' } },
      $defs: { entry: { type: 'string', errorMessage: 'no' } },
    };
    const b = {
      $id: 'urn:y:a',
      type: 'object',
      properties: {
        e: { $ref: '#/$defs/entry' },
        other: { $ref: 'urn:x:a#/$defs/entry' },
        lost: { $ref: 'other.json' },
      },
      $defs: { entry: { type: 'integer' } },
    };
    const p = { title: 'Problem', type: 'string' };
    expect(c.ref(a, { hint: 'a' })).toEqual({ $ref: '#/components/schemas/A' });
    expect(c.ref(b, { hint: 'b' })).toEqual({ $ref: '#/components/schemas/A2' });
    expect(c.ref(a, { hint: 'again' })).toEqual({ $ref: '#/components/schemas/A' });
    expect(c.ref(p, { hint: 'p' })).toEqual({ $ref: '#/components/schemas/Problem2' });
    expect(c.schemas.A).toEqual({
      type: 'object',
      properties: { e: { $ref: '#/components/schemas/AEntry' }, self: { $ref: '#/components/schemas/A' } },
    });
    expect(c.schemas.AEntry).toEqual({ type: 'string' });
    expect(c.schemas.A2).toEqual({
      type: 'object',
      properties: {
        e: { $ref: '#/components/schemas/A2Entry' },
        other: { $ref: '#/components/schemas/AEntry' },
        lost: { $ref: '#/components/schemas/UnresolvedOtherJson' },
      },
    });
    expect(c.schemas.A2Entry).toEqual({ type: 'integer' });
    // the input schemas (shared with ajv) are left as they were
    expect(a.$defs.entry.errorMessage).toBe('no');
  });
});
