// x-mcp-header declarations of tools files against the constraints of MCP 2026-07-28
// (server/tools.mdx "x-mcp-header"): a tool breaking one is a load diagnostic, never served.

import { describe, expect, it } from 'vitest';
import { resolveParamHeaders } from '../../engine/gateway/tool-headers.ts';

const schema = {
  type: 'object',
  properties: {
    region: { type: 'string' },
    count: { type: 'integer' },
    ratio: { type: 'number' },
    flag: { type: 'boolean' },
    list: { type: 'array', items: { type: 'string' } },
    nested: { type: 'object', properties: { pair: { type: 'string' } } },
  },
};

describe('x-mcp-header constraints', () => {
  it('annotates string, integer and boolean properties, nested ones through properties, without changing the input', () => {
    const r = resolveParamHeaders({ region: 'Region', count: 'Count', flag: 'Flag', 'nested.pair': 'Pair' }, schema);
    expect(r.problems).toEqual([]);
    expect(r.params.map((p) => [p.path.join('.'), p.header, p.type])).toEqual([
      ['region', 'mcp-param-region', 'string'],
      ['count', 'mcp-param-count', 'integer'],
      ['flag', 'mcp-param-flag', 'boolean'],
      ['nested.pair', 'mcp-param-pair', 'string'],
    ]);
    expect((r.schema as any).properties.nested.properties.pair['x-mcp-header']).toBe('Pair');
    expect(JSON.stringify(schema)).not.toContain('x-mcp-header');
  });

  it('refuses a name that is no HTTP token, a duplicate (case-insensitive), a number or array, an unknown property', () => {
    expect(resolveParamHeaders({ region: 'Re gion' }, schema).problems[0]).toContain('not an HTTP field-name token');
    expect(resolveParamHeaders({ region: 'Region', count: 'REGION' }, schema).problems[0]).toContain(
      'case-insensitively',
    );
    expect(resolveParamHeaders({ ratio: 'Ratio' }, schema).problems[0]).toContain('string, integer or boolean');
    expect(resolveParamHeaders({ list: 'List' }, schema).problems[0]).toContain('string, integer or boolean');
    expect(resolveParamHeaders({ 'list.items': 'Item' }, schema).problems[0]).toContain('no such property');
    expect(resolveParamHeaders({ nope: 'Nope' }, schema).problems[0]).toContain('no such property');
  });
});
