// Fast evaluator for a subset of JSONata: compiles the AST to closures that run synchronously.
// Returns undefined for anything outside the subset, and the caller falls back to JSONata.
// (Filled in by the fast-path work; the whole subset is tested against JSONata itself.)

export type FastFn = (input: unknown, bindings?: Record<string, unknown>) => unknown;

export function compileFast(_ast: unknown, _functions: Record<string, { fn: (...a: any[]) => unknown }>): FastFn | undefined {
  return undefined;
}
