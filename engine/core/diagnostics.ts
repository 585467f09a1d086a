// Diagnostics with file:line:col, the one format of lint, load and startup errors.

export interface Diagnostic {
  file: string;
  line: number;
  col: number;
  message: string;
  /** YAML path of the offending node, e.g. `steps[1].to-http.method` */
  path?: string;
  severity?: 'error' | 'warning';
}

/**
 * Diagnostics about a value at their place (its type, its allowed values), not a key or a missing one:
 * one a placeholder brought in is said at the values file line that sets it (placeholders.ts).
 */
const valueProblems = new WeakSet<Diagnostic>();
export function markValueProblem<D extends Diagnostic>(d: D): D {
  valueProblems.add(d);
  return d;
}
export const isValueProblem = (d: Diagnostic): boolean => valueProblems.has(d);

export function formatDiagnostic(d: Diagnostic): string {
  const where = d.path ? ` (at ${d.path})` : '';
  return `${d.file}:${d.line}:${d.col} ${d.severity === 'warning' ? 'warning: ' : ''}${d.message}${where}`;
}

/**
 * An error stops a start, a reload and `engine lint` (exit 1). A warning (something that would
 * change nothing, such as an unused client profile) is printed and logged and stops nothing,
 * unless `engine lint --strict`.
 */
export const isError = (d: Diagnostic): boolean => d.severity !== 'warning';

/** Thrown by loaders and compilers; carries one or more diagnostics. */
export class DiagnosticError extends Error {
  constructor(readonly diagnostics: Diagnostic[]) {
    super(diagnostics.map(formatDiagnostic).join('\n'));
    this.name = 'DiagnosticError';
  }
}

/**
 * A setting given outside the project's files (a process environment variable, a command-line flag)
 * that the engine cannot honour: the message names the setting and what it may be, and the CLI
 * prints it as one line, without a stack trace, and exits 1.
 */
export class SettingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SettingError';
  }
}

/**
 * Thrown by a step's compile function; the loader turns it into a Diagnostic at `path`
 * (relative to the step's config object).
 */
export class ConfigError extends Error {
  constructor(
    message: string,
    readonly path: (string | number)[] = [],
    /** the problem is the key at `path` (an unknown keyword), not its value */
    readonly key = false,
  ) {
    super(message);
    this.name = 'ConfigError';
  }
}

function levenshtein(a: string, b: string): number {
  const m = a.length,
    n = b.length;
  if (!m) return n;
  if (!n) return m;
  let prev = Array.from({ length: n + 1 }, (_, j) => j);
  for (let i = 1; i <= m; i++) {
    const cur = [i];
    for (let j = 1; j <= n; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[n];
}

/** The closest candidate within a distance that scales with the word, or undefined. */
export function didYouMean(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  const w = word.toLowerCase();
  for (const c of candidates) {
    const d = levenshtein(w, c.toLowerCase());
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  const limit = Math.max(2, Math.floor(word.length / 3));
  return bestD <= limit ? best : undefined;
}

export function suggestion(word: string, candidates: Iterable<string>): string {
  const s = didYouMean(word, candidates);
  return s ? `; did you mean '${s}'?` : '';
}

/** 1-based line and column of the character at `offset` (0-based) of a text. */
export function textPosition(text: string, offset: number): { line: number; col: number } {
  const before = text.slice(0, Math.max(0, offset)).split('\n');
  return { line: before.length, col: before[before.length - 1].length + 1 };
}
