// Error templates: JSON files in transforms/<vendor>/ that map vendor errors (kind, HTTP status,
// vendor code) to platform problems. Rules are tried in order; the first match wins.
//
// {
//   "vendorCode": "JSONata over {vendorStatus, vendorBody, vendorHeaders} giving the vendor code",
//   "rules": [ { "when": {"vendorCode": ["Unauthorized"]}, "status": 401, "code": "GC002", "title": "Unauthorized" } ],
//   "default": { "status": 502, "code": "GC027", "title": "Generic Error" }
// }

import { PlatformError, type ErrorKind } from '../core/errors.ts';
import {
  compileExpression,
  ExpressionLimitError,
  isPromise,
  type Expression,
  type ExpressionOptions,
} from '../expressions/expressions.ts';
import { ConfigError } from '../core/diagnostics.ts';
import { formatPath } from '../core/yaml-source.ts';
import { maskDeep, maskText } from '../observability/mask.ts';
import { unknownCode } from '../core/error-catalog.ts';

export interface Match {
  kind?: ErrorKind[];
  status?: number[];
  vendorStatus?: number[];
  vendorCode?: string[];
  vendorCodePrefix?: string[];
}

export interface ProblemSpec {
  status?: number;
  code?: string;
  title?: string;
  /** JSONata for the detail text */
  detail?: string;
  /** JSONata giving extra members of the problem */
  extensions?: string;
  /** response header: JSONata */
  headers?: Record<string, string>;
  /** keep the field errors of a validation error (default true) */
  keepErrors?: boolean;
}

interface Rule extends ProblemSpec {
  when?: Match;
}

export interface TemplateFile {
  description?: string;
  vendorCode?: string;
  rules: Rule[];
  default?: ProblemSpec;
}

export const MATCH_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    kind: {
      type: 'array',
      items: {
        enum: [
          'validation',
          'unsupported-media',
          'payload-too-large',
          'not-found',
          'unauthorized',
          'forbidden',
          'rate-limited',
          'conflict',
          'vendor',
          'timeout',
          'connection',
          'eventhub',
          'config',
          'internal',
        ],
      },
    },
    status: { type: 'array', items: { type: 'integer' } },
    vendorStatus: { type: 'array', items: { type: 'integer' } },
    vendorCode: { type: 'array', items: { type: 'string' } },
    vendorCodePrefix: { type: 'array', items: { type: 'string' } },
  },
};

export const PROBLEM_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    status: { type: 'integer', minimum: 400, maximum: 599 },
    code: { type: 'string' },
    title: { type: 'string' },
    detail: { type: 'string', description: 'JSONata' },
    extensions: { type: 'string', description: 'JSONata giving extra problem members' },
    headers: { type: 'object', additionalProperties: { type: 'string' }, description: 'header: JSONata' },
    keepErrors: { type: 'boolean' },
  },
};

export const TEMPLATE_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['rules'],
  properties: {
    $schema: { type: 'string' },
    description: { type: 'string' },
    vendorCode: { type: 'string' },
    rules: {
      type: 'array',
      items: { ...PROBLEM_SCHEMA, properties: { ...PROBLEM_SCHEMA.properties, when: MATCH_SCHEMA } },
    },
    default: PROBLEM_SCHEMA,
  },
};

export function matches(m: Match | undefined, e: PlatformError): boolean {
  if (!m) return true;
  if (m.kind && !m.kind.includes(e.kind)) return false;
  if (m.status && !m.status.includes(e.status)) return false;
  if (m.vendorStatus && (e.vendorStatus === undefined || !m.vendorStatus.includes(e.vendorStatus))) return false;
  if (m.vendorCode && (e.vendorCode === undefined || !m.vendorCode.includes(e.vendorCode))) return false;
  if (
    m.vendorCodePrefix &&
    (e.vendorCode === undefined || !m.vendorCodePrefix.some((p) => e.vendorCode!.startsWith(p)))
  )
    return false;
  return true;
}

async function ev(e: Expression | undefined, input: unknown): Promise<unknown> {
  if (!e) return undefined;
  const v = e.evaluate(input);
  return isPromise(v) ? await v : v;
}

export interface CompiledProblem {
  /** the platform code it answers (none: the error's own) */
  readonly code?: string;
  apply(e: PlatformError): Promise<PlatformError>;
}

/** The view of an error that template expressions see. */
function errorView(e: PlatformError): Record<string, unknown> {
  return {
    kind: e.kind,
    status: e.status,
    code: e.code,
    title: e.title,
    detail: e.detail,
    errors: e.errors,
    vendorStatus: e.vendorStatus,
    vendorCode: e.vendorCode,
    vendorBody: e.vendorBody,
    vendorHeaders: (e.extensions?.vendorHeaders ?? {}) as Record<string, string>,
  };
}

/**
 * Compiles one expression of a template or problem with the engine's limits; `options.where` says
 * whose it is (route, template file) and the JSON path inside is appended, so a limit error in the
 * log points at the expression.
 */
function templateExpression(src: string, path: (string | number)[], options: ExpressionOptions): Expression {
  const where = `${options.where ?? 'an error template'}, ${formatPath(path)}`;
  try {
    return compileExpression(src, [], { ...options, where });
  } catch (e: any) {
    throw new ConfigError(e.message, path);
  }
}

export function compileProblem(
  spec: ProblemSpec,
  where: (string | number)[],
  options: ExpressionOptions = {},
): CompiledProblem {
  const x = (src: string | undefined, p: (string | number)[]) =>
    src === undefined ? undefined : templateExpression(src, [...where, ...p], options);
  const detail = x(spec.detail, ['detail']);
  const extensions = x(spec.extensions, ['extensions']);
  const headers = Object.entries(spec.headers ?? {}).map(([h, s]) => [h, x(s, ['headers', h])!] as const);
  return {
    code: spec.code,
    async apply(e) {
      const view = errorView(e);
      const d = await ev(detail, view);
      const ext = (await ev(extensions, view)) as Record<string, unknown> | undefined;
      const hdrs: Record<string, string> = { ...e.headers };
      for (const [h, expr] of headers) {
        const v = await ev(expr, view);
        if (v !== undefined && v !== null && v !== '') hdrs[h] = maskText(String(v));
      }
      // template output relays vendor text to the caller and the log line: masked and bounded here
      // too, whatever the template did with the (already masked) vendor body
      return new PlatformError({
        kind: e.kind,
        // a call refused to spare a sick vendor keeps its 503 and Retry-After: the caller may come back then
        status: e.refusedBy ? e.status : (spec.status ?? e.status),
        code: spec.code ?? e.code,
        title: spec.title ?? e.title,
        detail: d !== undefined && d !== null ? maskText(String(d)) : e.detail,
        errors: spec.keepErrors === false ? undefined : e.errors,
        vendorStatus: e.vendorStatus,
        vendorCode: e.vendorCode,
        vendorBody: e.vendorBody,
        headers: Object.keys(hdrs).length ? hdrs : undefined,
        transient: e.transient,
        notSent: e.notSent,
        refusedBy: e.refusedBy,
        noRetry: e.noRetry,
        extensions: ext && typeof ext === 'object' ? (maskDeep(ext) as Record<string, unknown>) : undefined,
        cause: e,
      });
    },
  };
}

export interface CompiledTemplate {
  /** the platform codes its rules and default answer */
  readonly codes: string[];
  map(e: PlatformError): Promise<PlatformError>;
}

/** The codes of a template that the catalog does not have: where (JSON path) and why; `where` names the template. */
export function unknownTemplateCodes(t: TemplateFile, where: string): { path: (string | number)[]; message: string }[] {
  const specs: [(string | number)[], ProblemSpec | undefined][] = [
    ...t.rules.map((r, i): [(string | number)[], ProblemSpec] => [['rules', i], r]),
    [['default'], t.default],
  ];
  return specs.flatMap(([path, spec]) => {
    const why = spec?.code === undefined ? undefined : unknownCode(spec.code, where);
    return why ? [{ path: [...path, 'code'], message: why }] : [];
  });
}

/** `options`: the engine's expression limits and `where`, naming the route and the template file. */
export function compileTemplate(t: TemplateFile, options: ExpressionOptions = {}): CompiledTemplate {
  const code = t.vendorCode ? templateExpression(t.vendorCode, ['vendorCode'], options) : undefined;
  const rules = t.rules.map((r, i) => ({ when: r.when, problem: compileProblem(r, ['rules', i], options) }));
  const dflt = t.default ? compileProblem(t.default, ['default'], options) : undefined;
  return {
    codes: [
      ...new Set(
        [...t.rules, ...(t.default ? [t.default] : [])].flatMap((r) => (r.code === undefined ? [] : [r.code])),
      ),
    ],
    async map(e) {
      if (code && e.vendorCode === undefined && e.vendorBody !== undefined) {
        try {
          const c = await ev(code, errorView(e));
          if (c !== undefined && c !== null && c !== '') e.vendorCode = String(c);
        } catch (err) {
          // a malformed vendor body keeps no code; a runaway expression is the template's fault
          if (err instanceof ExpressionLimitError) throw err;
        }
      }
      for (const r of rules) if (matches(r.when, e)) return r.problem.apply(e);
      return dflt ? dflt.apply(e) : e;
    },
  };
}
