// Errors of the fast evaluator. Runtime errors carry JSONata's error code and message so a route
// sees the same failure whichever evaluator ran; the two internal signals never leave the module.

const MESSAGES: Record<string, string> = {
  D1001: 'Number out of range: {{value}}',
  D1002: 'Cannot negate a non-numeric value: {{value}}',
  T1003: 'Key in object structure must evaluate to a string; got: {{value}}',
  T1006: 'Attempted to invoke a non-function',
  D1009: 'Multiple key definitions evaluate to same key: {{value}}',
  D1012: 'Evaluation timeout after {{value}} milliseconds. Check for infinite loop',
  D1013: 'Object property names starting with _jsonata_ are reserved for internal use: {{value}}',
  T0410: 'Argument {{index}} of function {{token}} does not match function signature',
  T0411: 'Context value is not a compatible type with argument {{index}} of function {{token}}',
  T0412: 'Argument {{index}} of function {{token}} must be an array of {{type}}',
  T2001: 'The left side of the {{token}} operator must evaluate to a number',
  T2002: 'The right side of the {{token}} operator must evaluate to a number',
  T2003: 'The left side of the range operator (..) must evaluate to an integer',
  T2004: 'The right side of the range operator (..) must evaluate to an integer',
  T2009: 'The values {{value}} and {{value2}} either side of operator {{token}} must be of the same data type',
  T2010: 'The expressions either side of operator {{token}} must evaluate to numeric or string values',
  D2014:
    'The size of the sequence allocated by the range operator (..) must not exceed 1e7.  Attempted to allocate {{value}}.',
  D2015: 'The maximum sequence length of {{value}} was exceeded.',
  D3001: 'Attempting to invoke string function on Infinity or NaN',
  D3020: 'Third argument of split function must evaluate to a positive number',
  D3030: 'Unable to cast value to a number: {{value}}',
};

/** A JSONata runtime error (same `code`, `position`, `token` fields as JSONata's error objects). */
export class FastJsonataError extends Error {
  readonly code: string;
  position?: number;
  token?: string;
  readonly value?: unknown;
  readonly value2?: unknown;
  readonly index?: number;
  readonly type?: string;

  constructor(code: string, details: { value?: unknown; value2?: unknown; index?: number; type?: string } = {}) {
    super(code);
    this.name = 'JsonataError';
    this.code = code;
    Object.assign(this, details);
    this.refreshMessage();
  }

  /** Fills in position/token the way JSONata does on the way up (first one set wins). */
  locate(position: number | undefined, token: string | undefined, override = false): this {
    if (override || this.position === undefined) this.position = position;
    if (override || this.token === undefined) this.token = token;
    this.refreshMessage();
    return this;
  }

  /** applyInner on the way out of a called lambda: the call's position always, its name if no token. */
  relocate(position: number | undefined, token: string): this {
    this.position = position;
    if (this.token === undefined) this.token = token;
    this.refreshMessage();
    return this;
  }

  private refreshMessage(): void {
    const template = MESSAGES[this.code];
    if (template === undefined) return;
    this.message = template.replace(/\{\{([^}]+)}}/g, (_m, field: string) => {
      const v = (this as any)[field];
      try {
        return JSON.stringify(v) ?? 'undefined';
      } catch {
        return String(v);
      }
    });
  }
}

/**
 * Thrown at compile time for anything outside the supported subset: compileFast then returns
 * undefined and the caller keeps using JSONata.
 */
export class Unsupported extends Error {}

/**
 * Thrown at run time when a value makes exact emulation impractical (a function passed as data,
 * a promise in the data, a binding shadowing a function): the evaluation is redone by JSONata.
 */
export const BAIL: unique symbol = Symbol('fast-jsonata bail');
