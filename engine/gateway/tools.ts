// Tool declarations (`tools:` YAML files under routes/gateway/), their resolved MCP metadata and
// the approvals: a tool is served in an environment only while the digest of its metadata equals
// the digest recorded by `engine tools approve` in values/gateway-approvals.yaml.

import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Document, parseDocument } from 'yaml';
import { checkConfig } from '../schemas/config-check.ts';
import { didYouMean, type Diagnostic } from '../core/diagnostics.ts';
import { diagAt, type YamlSource } from '../core/yaml-source.ts';
import { fileSuggestion } from '../core/step-file.ts';
import type { CompiledRoute } from '../pipeline/route.ts';
import type { ParamHeader } from './mcp-headers.ts';
import { resolveParamHeaders } from './tool-headers.ts';

export type Security = 'none' | 'bearer';

export interface ToolDeclaration {
  name: string;
  title?: string;
  description: string;
  security: Security;
  route: string;
  'input-schema'?: string;
  'output-schema'?: string;
  /** path parameters of the target route, filled from the arguments of these names */
  'path-params'?: Record<string, string>;
  annotations?: Record<string, unknown>;
  /** arguments mirrored into Mcp-Param-{Name} headers (2026-07-28): property path -> name */
  'x-mcp-header'?: Record<string, string>;
  /** `required`: every call is confirmed by the user first (confirmation.ts) */
  confirm?: 'required';
  /** the confirmation is a sign-in at most this many seconds old instead of a click (RFC 9470) */
  'step-up'?: number;
  /** `optional`: a call may answer a task handle at once (MCP tasks extension, tasks.ts) */
  task?: 'optional';
  /** OAuth scopes the caller's token must all carry */
  scopes?: string[];
}

export interface Tool {
  name: string;
  route: string;
  security: Security;
  /** the MCP tool object served by tools/list (2025-11-25 and earlier) */
  definition: Record<string, unknown>;
  /**
   * the tool object of 2026-07-28: `x-mcp-header` annotations in the input schema, and an output
   * schema that also admits the problem a failed call carries as structuredContent
   */
  modernDefinition: Record<string, unknown>;
  /** arguments mirrored into headers (2026-07-28 requests), checked against the body */
  paramHeaders: ParamHeader[];
  /** the tool declares an output schema (earlier revisions: a failure carries no structuredContent) */
  hasOutputSchema: boolean;
  /** sha256 of the canonical metadata */
  digest: string;
  /** arguments that are the route's path parameters (the others are the body) */
  pathParams: string[];
  /** every call needs the user's confirmation bound to its arguments (confirmation.ts) */
  confirm: boolean;
  /** seconds: the confirmation is a sign-in (the token's auth_time) at most this old, not a click */
  stepUp?: number;
  /** a call from a client declaring the tasks extension answers a task handle at once (tasks.ts) */
  task: boolean;
  /** scopes the token must carry (all of them) */
  scopes: string[];
  file: string;
}

const TOOL_NAME = '^[A-Za-z][A-Za-z0-9_.-]{0,63}$';

export const TOOLS_FILE_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['tools'],
  properties: {
    description: { type: 'string' },
    tools: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'description', 'security', 'route'],
        properties: {
          name: {
            type: 'string',
            pattern: TOOL_NAME,
            description: 'tool name agents call (camelCase, as in the specification)',
          },
          title: { type: 'string', description: 'human-readable name' },
          description: { type: 'string', minLength: 1, description: 'what the tool does, for the model' },
          security: {
            enum: ['none', 'bearer'],
            description: 'none: subscription key only; bearer: also a valid user token',
          },
          route: {
            type: 'string',
            pattern: '^[a-z0-9][a-z0-9-]*$',
            description: 'id of the route called in-process with the arguments as body',
          },
          'input-schema': {
            type: 'string',
            description: "JSON Schema file of the arguments (default: the route's validate schema)",
          },
          'output-schema': {
            type: 'string',
            description: "JSON Schema file of the result (default: the route's output-schema)",
          },
          'path-params': {
            type: 'object',
            propertyNames: { pattern: '^[A-Za-z_][A-Za-z0-9_]*$' },
            additionalProperties: { type: 'string', minLength: 1 },
            description:
              "the target route's path parameters, each an argument of the same name (a required string) with this description; the other arguments are the body",
          },
          'x-mcp-header': {
            type: 'object',
            propertyNames: { pattern: '^[A-Za-z_$][A-Za-z0-9_$-]*(\\.[A-Za-z_$][A-Za-z0-9_$-]*)*$' },
            additionalProperties: { type: 'string', minLength: 1 },
            description:
              'MCP 2026-07-28: arguments worth routing on, mirrored by clients into Mcp-Param-{Name} headers (argument path, dotted for nested properties: header name); string, integer or boolean properties only',
          },
          confirm: {
            enum: ['required'],
            description:
              'required: the first call asks the user to confirm these exact arguments (MCP 2026-07-28 input_required); the route runs only on the confirmed retry',
          },
          'step-up': {
            type: 'integer',
            minimum: 30,
            maximum: 86400,
            description:
              'seconds (with confirm: required and security: bearer): the confirmation is a fresh sign-in instead of a click. A call whose token\'s auth_time is at most this old runs; an older sign-in, or a token without auth_time, is 401 with WWW-Authenticate error="insufficient_user_authentication" and max_age (RFC 9470), and the client signs the user in again',
          },
          task: {
            enum: ['optional'],
            description:
              'optional: a 2026-07-28 client that declares the tasks extension (io.modelcontextprotocol/tasks) gets a task handle at once and polls tasks/get for the result; other clients wait for the result as usual',
          },
          scopes: {
            type: 'array',
            uniqueItems: true,
            minItems: 1,
            // RFC 6749 §3.3 scope-token
            items: { type: 'string', pattern: '^[\\x21\\x23-\\x5B\\x5D-\\x7E]+$' },
            description:
              "OAuth scopes the caller's token must all carry (security: bearer); without them 403 insufficient_scope, and tools/list does not show the tool",
          },
          annotations: {
            type: 'object',
            additionalProperties: false,
            properties: {
              readOnlyHint: { type: 'boolean' },
              destructiveHint: { type: 'boolean' },
              idempotentHint: { type: 'boolean' },
              openWorldHint: { type: 'boolean' },
            },
          },
        },
      },
    },
  },
};

/** The JSON Schema of tools files for editors (schemas/gateway-tools.schema.json, `engine tools schema`). */
export function toolsJsonSchema(): Record<string, unknown> {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'urn:platform:schema:gateway-tools',
    title: 'Agent tool gateway: tools file (routes/gateway/*.yaml)',
    ...TOOLS_FILE_SCHEMA,
  };
}

/** JSON with sorted keys: the digest does not depend on key order. */
export function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    // a loop rather than filter/map/join: every tool call's arguments are digested (audit-chain.ts)
    const keys = Object.keys(v).sort();
    let out = '';
    for (let i = 0; i < keys.length; i++) {
      const m = (v as Record<string, unknown>)[keys[i]];
      if (m !== undefined) out += `${out ? ',' : ''}${JSON.stringify(keys[i])}:${canonical(m)}`;
    }
    return `{${out}}`;
  }
  return JSON.stringify(v);
}

/** A schema as MCP serves it: 2020-12 is MCP's default dialect, so `$schema`/`$id` go. */
function mcpSchema(s: Record<string, unknown>): Record<string, unknown> {
  const { $schema, $id, ...rest } = s;
  void $schema;
  void $id;
  return rest.type === undefined ? { type: 'object', ...rest } : rest;
}

/** The platform problem a failed tool call carries as structuredContent (RFC 9457 members). */
const TOOL_PROBLEM_SCHEMA = {
  type: 'object',
  description: 'isError: true: the platform problem (RFC 9457) of the failed call',
  required: ['status', 'title'],
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    code: { type: 'string', description: 'platform error code, e.g. GC025' },
    errors: {
      type: 'array',
      items: { type: 'object', properties: { field: { type: 'string' }, message: { type: 'string' } } },
    },
    correlationId: { type: 'string' },
  },
};

interface Loaded {
  decl: ToolDeclaration;
  src: YamlSource;
  index: number;
}

/** The route's `{name}` path parameters and the tool's `path-params` must name the same set. */
function checkPathParams(
  decl: ToolDeclaration,
  route: CompiledRoute,
  body: Record<string, unknown>,
): { key: string; message: string }[] {
  const out: { key: string; message: string }[] = [];
  const given = Object.keys(decl['path-params'] ?? {});
  const http = route.source.kind === 'http' ? (route.source.compiled as { path: string; params: string[] }) : undefined;
  const taken = http?.params ?? [];
  const where = http ? `its path is ${http.path}` : `it is not an HTTP route and takes no path parameters`;
  for (const n of given) {
    if (!taken.includes(n)) {
      const s = didYouMean(n, taken);
      out.push({
        key: 'path-params',
        message: `tool '${decl.name}': route '${decl.route}' has no path parameter '${n}' (${where})${s ? `; did you mean '${s}'?` : ''}`,
      });
    }
  }
  for (const n of taken) {
    if (!given.includes(n))
      out.push({
        key: 'route',
        message: `tool '${decl.name}': route '${decl.route}' takes the path parameter {${n}} (${where}); add path-params: { ${n}: <what the agent passes> }`,
      });
  }
  const props = (body.properties ?? {}) as Record<string, unknown>;
  if (given.length && body.type !== undefined && body.type !== 'object')
    out.push({ key: 'path-params', message: `tool '${decl.name}': path parameters need an object body schema` });
  for (const n of given) {
    if (Object.prototype.hasOwnProperty.call(props, n))
      out.push({
        key: 'path-params',
        message: `tool '${decl.name}': '${n}' is both a path parameter and a body property`,
      });
  }
  return out;
}

/** The tool's input schema: the body schema plus one required string property per path parameter. */
function withPathParams(body: Record<string, unknown>, pathParams: Record<string, string>): Record<string, unknown> {
  const names = Object.keys(pathParams);
  if (!names.length) return body;
  const properties = { ...((body.properties as Record<string, unknown>) ?? {}) };
  for (const n of names) properties[n] = { type: 'string', minLength: 1, description: pathParams[n] };
  const required = [...new Set([...(Array.isArray(body.required) ? (body.required as string[]) : []), ...names])];
  return { ...body, type: 'object', properties, required };
}

/** Collects tool declarations while routes load; resolves them against the routes at the end. */
export class ToolCollector {
  readonly loaded: Loaded[] = [];
  /** the tools files seen */
  readonly files = new Set<string>();
  tools: Tool[] = [];

  constructor(private root: string) {}

  load(src: YamlSource): Diagnostic[] {
    this.files.add(src.file);
    const d = checkConfig(src.value, TOOLS_FILE_SCHEMA, src, [], 'tools file');
    if (d.length) return d;
    const out: Diagnostic[] = [];
    (src.value as { tools: ToolDeclaration[] }).tools.forEach((decl, index) => {
      const prev = this.loaded.find((l) => l.decl.name === decl.name);
      if (prev)
        out.push(
          diagAt(src, ['tools', index, 'name'], `duplicate tool name '${decl.name}' (also in ${prev.src.file})`),
        );
      else this.loaded.push({ decl, src, index });
    });
    return out;
  }

  /** tools whose route exists in the project but is not loaded in this run */
  unserved: string[] = [];

  finish(routes: CompiledRoute[]): Diagnostic[] {
    const out: Diagnostic[] = [];
    this.unserved = [];
    const byId = new Map(routes.map((r) => [r.id, r]));
    this.tools = [];
    for (const { decl, src, index } of this.loaded) {
      const at = (k: string) => ['tools', index, k];
      const route = byId.get(decl.route);
      if (!route) {
        // a connector that is not deployed (its folder not loaded) leaves its tools unserved; a
        // route id that exists in no route file of the project is a mistake
        if (routeIdExists(join(this.root, 'routes'), decl.route)) {
          this.unserved.push(decl.name);
          continue;
        }
        const s = didYouMean(decl.route, byId.keys());
        out.push(
          diagAt(
            src,
            at('route'),
            `tool '${decl.name}' targets route '${decl.route}', which no route file defines${s ? `; did you mean '${s}'?` : ''}`,
          ),
        );
        continue;
      }
      const file = (k: 'input-schema' | 'output-schema'): Record<string, unknown> | undefined => {
        const name = decl[k];
        if (!name) return undefined;
        const abs = resolve(this.root, name);
        if (!existsSync(abs)) {
          out.push(diagAt(src, at(k), `file not found: ${name}${fileSuggestion(name, undefined, this.root)}`));
          return undefined;
        }
        try {
          return JSON.parse(readFileSync(abs, 'utf8'));
        } catch (e: any) {
          out.push(diagAt(src, at(k), `${name}: invalid JSON: ${e.message}`));
          return undefined;
        }
      };
      const pathParams = decl['path-params'] ?? {};
      const bodySchema =
        file('input-schema') ??
        route.meta.inputSchema ??
        // a route that takes only path parameters: the body is an empty object
        (Object.keys(pathParams).length ? { type: 'object', additionalProperties: false, properties: {} } : undefined);
      if (!bodySchema) {
        out.push(
          diagAt(
            src,
            at('route'),
            `tool '${decl.name}': route '${decl.route}' has no body validate schema; give the tool an 'input-schema'`,
          ),
        );
        continue;
      }
      if (decl['step-up'] !== undefined && (decl.confirm !== 'required' || decl.security !== 'bearer')) {
        out.push(
          diagAt(
            src,
            at('step-up'),
            `tool '${decl.name}': step-up is a way to confirm: it needs confirm: required and security: bearer (a token whose auth_time says when the user signed in)`,
          ),
        );
        continue;
      }
      if (decl.scopes && decl.security !== 'bearer') {
        out.push(
          diagAt(src, at('scopes'), `tool '${decl.name}': scopes need security: bearer (a token to carry them)`),
        );
        continue;
      }
      const paramDiags = checkPathParams(decl, route, bodySchema);
      if (paramDiags.length) {
        out.push(...paramDiags.map((m) => diagAt(src, at(m.key), m.message)));
        continue;
      }
      const input = mcpSchema(withPathParams(bodySchema, pathParams));
      const headers = resolveParamHeaders(decl['x-mcp-header'] ?? {}, input);
      if (headers.problems.length) {
        out.push(...headers.problems.map((m) => diagAt(src, at('x-mcp-header'), `tool '${decl.name}': ${m}`)));
        continue;
      }
      const output = file('output-schema') ?? route.meta.outputSchema;
      const definition: Record<string, unknown> = {
        name: decl.name,
        ...(decl.title ? { title: decl.title } : {}),
        description: decl.description,
        inputSchema: input,
        ...(output ? { outputSchema: mcpSchema(output) } : {}),
        ...(decl.annotations ? { annotations: decl.annotations } : {}),
        ...(decl.security === 'bearer' || decl.confirm || decl.scopes || decl.task
          ? {
              _meta: {
                ...(decl.security === 'bearer' ? { 'platform/security': 'bearer' } : {}),
                ...(decl.confirm ? { 'platform/confirm': decl.confirm } : {}),
                ...(decl['step-up'] !== undefined ? { 'platform/step-up': decl['step-up'] } : {}),
                ...(decl.task ? { 'platform/task': decl.task } : {}),
                ...(decl.scopes ? { 'platform/scopes': decl.scopes } : {}),
              },
            }
          : {}),
      };
      const modernDefinition: Record<string, unknown> = {
        ...definition,
        inputSchema: headers.schema,
        // 2026-07-28 allows any JSON Schema 2020-12 here: the result, or the problem of a failed call
        ...(output ? { outputSchema: { anyOf: [mcpSchema(output), TOOL_PROBLEM_SCHEMA] } } : {}),
      };
      const declared = decl['x-mcp-header'] ? { 'x-mcp-header': decl['x-mcp-header'] } : {};
      const digest =
        'sha256:' +
        createHash('sha256')
          .update(canonical({ ...definition, ...declared, security: decl.security, route: decl.route }))
          .digest('hex');
      this.tools.push({
        name: decl.name,
        route: decl.route,
        security: decl.security,
        definition,
        modernDefinition,
        digest,
        file: src.file,
        pathParams: Object.keys(pathParams),
        paramHeaders: headers.params,
        hasOutputSchema: output !== undefined,
        confirm: decl.confirm === 'required',
        ...(decl['step-up'] !== undefined ? { stepUp: decl['step-up'] } : {}),
        task: decl.task === 'optional',
        scopes: decl.scopes ?? [],
      });
    }
    return out;
  }

  /** Where a tool is declared, for approval diagnostics. */
  where(name: string): { src: YamlSource; index: number } | undefined {
    const l = this.loaded.find((x) => x.decl.name === name);
    return l && { src: l.src, index: l.index };
  }
}

// ---- approvals -------------------------------------------------------------------------------

export const APPROVALS_FILE = 'gateway-approvals.yaml';

export interface Approval {
  digest: string;
  approvedAt?: string;
  approvedBy?: string;
}
export type Approvals = Record<string, Record<string, Approval>>;

export function approvalsPath(valuesDir: string): string {
  return join(valuesDir, APPROVALS_FILE);
}

export function readApprovals(valuesDir: string): Approvals {
  const file = approvalsPath(valuesDir);
  if (!existsSync(file)) return {};
  const v = parseDocument(readFileSync(file, 'utf8')).toJS() as Record<string, unknown> | null;
  const out: Approvals = {};
  for (const [env, tools] of Object.entries(v ?? {})) {
    if (!tools || typeof tools !== 'object') continue;
    out[env] = {};
    for (const [name, a] of Object.entries(tools as Record<string, any>)) {
      if (a && typeof a.digest === 'string')
        out[env][name] = { digest: a.digest, approvedAt: a.approvedAt, approvedBy: a.approvedBy };
    }
  }
  return out;
}

export type ApprovalState = 'approved' | 'unapproved' | 'changed';

export function approvalState(tool: Tool, approvals: Approvals, env: string): ApprovalState {
  const a = approvals[env]?.[tool.name];
  if (!a) return 'unapproved';
  return a.digest === tool.digest ? 'approved' : 'changed';
}

/** Records the digests of `tools` for `env`, keeping the file's comments and other entries. */
export function writeApprovals(valuesDir: string, env: string, tools: Tool[], by?: string): void {
  const file = approvalsPath(valuesDir);
  let doc: Document;
  if (existsSync(file)) doc = parseDocument(readFileSync(file, 'utf8'));
  else {
    doc = new Document({});
    doc.commentBefore =
      ' Tool approvals of the agent tool gateway, per environment: a tool is served only while the digest\n' +
      ' of its metadata (name, description, schemas, security, route) equals the one recorded here.\n' +
      ' Written by `engine tools approve NAME --env ENV`; review the diff like code.';
  }
  if (doc.contents === null) doc.contents = doc.createNode({}) as any;
  const now = new Date().toISOString();
  for (const t of tools) {
    doc.setIn([env, t.name], doc.createNode({ digest: t.digest, approvedAt: now, ...(by ? { approvedBy: by } : {}) }));
  }
  writeFileSync(file, doc.toString({ lineWidth: 0 }));
}

/** True when some route file of the project (routes/**) declares `id: <id>`. */
function routeIdExists(root: string, id: string): boolean {
  if (!existsSync(root)) return false;
  const ID = /^id:\s*['"]?([^'"#\s]+)['"]?\s*(#.*)?$/m;
  // an instanced route's id has placeholders (`submit-{{direction}}-batch`): any value fills them
  const matches = (declared: string): boolean =>
    declared === id ||
    (declared.includes('{{') &&
      new RegExp(
        `^${declared
          .split(/\{\{[^}]*\}\}/)
          .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
          .join('[A-Za-z0-9_.-]+')}$`,
      ).test(id));
  const walk = (dir: string): boolean => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        if (walk(p)) return true;
        continue;
      }
      if (!/\.ya?ml$/.test(e.name)) continue;
      const m = ID.exec(readFileSync(p, 'utf8'));
      if (m && matches(m[1])) return true;
    }
    return false;
  };
  return walk(root);
}
