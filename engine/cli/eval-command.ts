// `engine eval`: evaluates a JSONata expression (-e) or a transforms file (-f) against a JSON
// input (a file, or stdin) with the engine's own functions bound, as a route step would, and
// prints the result as JSON. Authors try a mapping without starting anything. A file with
// {{properties}} takes them from `--values NAME`, as the routes that name it do.

import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { compileExpression } from '../expressions/expressions.ts';
import { resolve } from 'node:path';
import { ConfigError, DiagnosticError, formatDiagnostic, textPosition } from '../core/diagnostics.ts';
import { loadValues } from '../config/values.ts';
import { resolveTextPlaceholders, PLACEHOLDER } from '../config/placeholders.ts';
import { collectSet } from './startup-errors.ts';

interface EvalOpts {
  expression?: string;
  file?: string;
  input?: string;
  body?: boolean;
  compact?: boolean;
  values?: string;
  env?: string;
  set?: Record<string, string>;
}

/** Why the command stops: printed on stderr, exit 1. */
class EvalError extends Error {}

/** `line:col` of a JSONata character position (1-based, as JSONata counts, pointing past the token). */
const lineCol = (source: string, position: number) => textPosition(source, position - 1);

/** `where:line:col message` with the source line and a caret under the column. */
function located(where: string, source: string, message: string, position: number | undefined): string {
  if (position === undefined) return `${where}: ${message}`;
  const { line, col } = lineCol(source, position);
  const text = source.split('\n')[line - 1] ?? '';
  return `${where}:${line}:${col} ${message}\n  ${text}\n  ${' '.repeat(Math.max(0, col - 1))}^`;
}

function readInput(o: EvalOpts): unknown {
  let text: string;
  const name = o.input && o.input !== '-' ? o.input : 'stdin';
  try {
    text = readFileSync(o.input && o.input !== '-' ? o.input : 0, 'utf8');
  } catch (e: any) {
    throw new EvalError(`cannot read the input ${name}: ${e.code ?? e.message}`);
  }
  if (!text.trim()) return undefined;
  try {
    return JSON.parse(text);
  } catch (e: any) {
    throw new EvalError(`the input ${name} is not JSON: ${e.message}`);
  }
}

/**
 * The expression with its {{properties}} resolved from `--values NAME` (the values file of the
 * routes that use it, with `--env` and `--set` as `engine run` takes them), as a route would.
 */
function withValues(source: string, where: string, o: EvalOpts): string {
  const keys = [...new Set([...source.matchAll(PLACEHOLDER)].map((m) => m[1]))];
  if (!keys.length) return source;
  if (!o.values)
    throw new EvalError(
      `${where} uses ${keys.map((k) => `{{${k}}}`).join(', ')}: give --values NAME, the values file of the routes that use it (and --env NAME for an environment's values)`,
    );
  let set;
  try {
    set = loadValues({ dir: resolve('values'), env: o.env, set: o.set, lenient: true });
  } catch (e) {
    if (e instanceof DiagnosticError) throw new EvalError(e.diagnostics.map(formatDiagnostic).join('\n'));
    throw e;
  }
  const values = set.find(o.values);
  if (!values)
    throw new EvalError(`values file '${o.values}' not found under values/; available: ${set.names().join(', ')}`);
  const r = resolveTextPlaceholders(source, values, where);
  if (r.diagnostics.length) throw new EvalError(r.diagnostics.map(formatDiagnostic).join('\n'));
  return r.text;
}

async function evaluate(o: EvalOpts): Promise<string | undefined> {
  if (!o.expression === !o.file) throw new EvalError('give exactly one of -e EXPRESSION or -f FILE');
  let source: string;
  const where = o.file ?? '<expression>';
  if (o.file) {
    try {
      source = readFileSync(o.file, 'utf8');
    } catch (e: any) {
      throw new EvalError(`cannot read ${o.file}: ${e.code ?? e.message}`);
    }
  } else source = o.expression!;
  source = withValues(source, where, o);
  let expr;
  try {
    expr = compileExpression(source, [], { where });
  } catch (e) {
    if (e instanceof ConfigError) {
      const m = /^(.*) at character (\d+)$/s.exec(e.message);
      throw new EvalError(located(where, source, m ? m[1] : e.message, m ? Number(m[2]) : undefined));
    }
    throw e;
  }
  const input = readInput(o);
  // an answer about input the expression did not get (`false` for a missing IBAN) would mislead
  const missing = missingInput(source, input, o.body === true);
  if (missing) throw new EvalError(missing);
  let result: unknown;
  try {
    result = await expr.evaluate(o.body ? { body: input } : input);
  } catch (e: any) {
    const code = e?.code ? `${e.code}: ` : '';
    throw new EvalError(
      located(
        where,
        source,
        `evaluation failed: ${code}${e?.message ?? e}`,
        typeof e?.position === 'number' ? e.position : undefined,
      ),
    );
  }
  // nothing because nothing was given to read: said, not taken for an answer
  if (result === undefined && input === undefined) throw new EvalError(NO_INPUT);
  if (result === undefined) return undefined;
  return JSON.stringify(result, null, o.compact ? 0 : 2);
}

const EXAMPLE = `echo '{"iban": "DE89370400440532013000"}' | engine eval --body -e '$ibanValid(body.iban)'`;

/** Whether an expression reads the exchange's `body` (strings and comments aside). */
function readsBody(source: string): boolean {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""');
  return /(^|[^\w$.`])body\b/.test(code);
}

const NO_INPUT = `no input: give the JSON the expression reads on standard input or with -i FILE, e.g. ${EXAMPLE}`;

/**
 * Why the input cannot be what the expression reads: none at all, or a bare body given without
 * `--body` to an expression reading `body` (a route step sees the exchange, `{"body": ...}`).
 */
function missingInput(source: string, input: unknown, wrapped: boolean): string | undefined {
  if (!readsBody(source)) return undefined;
  if (input === undefined) return NO_INPUT;
  const hasBody = !!input && typeof input === 'object' && !Array.isArray(input) && 'body' in input;
  if (wrapped || hasBody) return undefined;
  return (
    'the expression reads body, but the input has no "body": without --body the input is the exchange ' +
    `as a route step sees it ({"body": ..., "vars": ...}). For a bare request body add --body, e.g. ${EXAMPLE}`
  );
}

export function registerEvalCommand(program: Command): void {
  program
    .command('eval')
    .description(
      "evaluate a JSONata expression or transforms file against JSON input (a file or stdin), with the engine's functions ($stableId, $ibanValid, ...); prints the result as JSON",
    )
    .option('-e, --expression <jsonata>', 'the expression')
    .option('-f, --file <file>', 'a .jsonata file (transforms/...)')
    .option('-i, --input <file>', 'JSON input file (default: stdin; - for stdin)')
    .option(
      '--body',
      'wrap the input as {"body": input}, as a route step sees a request body (without it the input is the exchange)',
    )
    .option('-c, --compact', 'print the result on one line')
    .option(
      '--values <name>',
      'values file whose properties {{placeholders}} resolve from (as for the routes that use the file)',
    )
    .option('--env <name>', 'environment whose values and keys apply (values/environments/<name>.yaml)')
    .option('--set <key=value>', 'set a property or environmental key (repeatable)', collectSet, {})
    .action(async (o: EvalOpts) => {
      try {
        const out = await evaluate(o);
        if (out === undefined) process.stderr.write('(no result: the expression gave undefined)\n');
        else process.stdout.write(out + '\n');
      } catch (e) {
        if (!(e instanceof EvalError)) throw e;
        process.stderr.write(`engine eval: ${e.message}\n`);
        process.exitCode = 1;
      }
    });
}
