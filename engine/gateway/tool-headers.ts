// `x-mcp-header` on tool parameters (MCP 2026-07-28, server/tools.mdx "x-mcp-header"): a tools
// file names the arguments worth routing on, and the served input schema carries the annotation
// so 2026-07-28 clients mirror those arguments into Mcp-Param-{Name} headers. The constraints are
// checked when the tools load: "Clients using the Streamable HTTP transport MUST reject tool
// definitions where any x-mcp-header value violates these constraints".

import { HEADER_TOKEN, type ParamHeader } from './mcp-headers.ts';

const PRIMITIVE = new Set(['string', 'integer', 'boolean']);

/**
 * The declared headers resolved against the input schema: the parameters, the schema with the
 * annotations in place (a copy), and the problems (each makes the tool invalid).
 */
export function resolveParamHeaders(
  declared: Record<string, string>,
  input: Record<string, unknown>,
): { params: ParamHeader[]; schema: Record<string, unknown>; problems: string[] } {
  const params: ParamHeader[] = [];
  const problems: string[] = [];
  const schema = structuredClone(input);
  const seen = new Map<string, string>();
  for (const [where, name] of Object.entries(declared)) {
    const path = where.split('.');
    // "MUST match HTTP field-name token syntax", "MUST NOT be empty", no control characters
    if (!HEADER_TOKEN.test(name)) {
      problems.push(`x-mcp-header '${name}' of '${where}' is not an HTTP field-name token`);
      continue;
    }
    // "MUST be case-insensitively unique among all x-mcp-header values in the inputSchema"
    const lower = name.toLowerCase();
    if (seen.has(lower)) {
      problems.push(
        `x-mcp-header '${name}' of '${where}' is also the header of '${seen.get(lower)}' (names compare case-insensitively)`,
      );
      continue;
    }
    seen.set(lower, where);
    // "statically reachable from the schema root ... a chain consisting solely of properties keys"
    let node: any = schema;
    for (const k of path) {
      const props = node && typeof node === 'object' ? node.properties : undefined;
      node =
        props && typeof props === 'object' && Object.prototype.hasOwnProperty.call(props, k) ? props[k] : undefined;
      if (!node) break;
    }
    if (!node || typeof node !== 'object') {
      problems.push(
        `x-mcp-header of '${where}': the input schema has no such property (a chain of 'properties' keys from the root)`,
      );
      continue;
    }
    // "MUST only be applied to parameters with primitive types (integer, string, boolean)"
    if (typeof node.type !== 'string' || !PRIMITIVE.has(node.type)) {
      problems.push(
        `x-mcp-header of '${where}': the property must have type string, integer or boolean (not ${JSON.stringify(node.type ?? 'any')})`,
      );
      continue;
    }
    node['x-mcp-header'] = name;
    params.push({ path, header: `mcp-param-${lower}`, name, type: node.type });
  }
  return { params, schema, problems };
}
