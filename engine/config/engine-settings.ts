// The `engine:` section of an environment file: the listener and the engine-wide limits. It has a
// schema (lint names unknown keys with a suggestion, like everywhere else) and a type, so a typo
// such as `server: {prot: 8080}` is an error instead of a setting silently ignored.

import { checkConfig } from '../dsl/config-check.ts';
import type { Diagnostic } from '../dsl/diagnostics.ts';
import type { YamlSource } from '../dsl/yaml-source.ts';

export interface ServerSettings {
  /** listen port */
  port: number;
  /** listen address */
  host: string;
  /** largest request body, bytes */
  bodyLimit: number;
  /** deepest nesting of a JSON request body (arrays and objects); deeper is a 400 */
  jsonDepthLimit: number;
  /** proxies whose X-Forwarded-For is trusted (addresses or CIDRs) */
  trustProxy: string[];
  /** time allowed to in-flight exchanges at shutdown, ms */
  shutdownTimeout: number;
}

export interface ExpressionSettings {
  /** longest time one JSONata evaluation may run, ms */
  timeout: number;
  /** deepest recursion of one JSONata evaluation (function calls and nested blocks) */
  maxDepth: number;
}

export interface EngineSettings {
  server: ServerSettings;
  expressions: ExpressionSettings;
}

export const ENGINE_DEFAULTS: EngineSettings = {
  server: { port: 8080, host: '127.0.0.1', bodyLimit: 1024 * 1024, jsonDepthLimit: 64, trustProxy: [], shutdownTimeout: 10_000 },
  expressions: { timeout: 1000, maxDepth: 500 },
};

const int = (minimum: number, description: string) => ({ type: 'integer', minimum, description });

export const engineSettingsSchema = {
  type: 'object',
  additionalProperties: false,
  description: 'engine-wide settings of an environment',
  properties: {
    server: {
      type: 'object',
      additionalProperties: false,
      properties: {
        port: { ...int(0, 'listen port (0: any free port)'), maximum: 65535 },
        host: { type: 'string', minLength: 1, description: 'listen address' },
        bodyLimit: int(1, 'largest request body, bytes'),
        jsonDepthLimit: { ...int(1, 'deepest nesting of a JSON request body'), maximum: 1000 },
        trustProxy: { type: 'array', items: { type: 'string', minLength: 1 }, description: 'proxies whose X-Forwarded-For is trusted (addresses or CIDRs)' },
        shutdownTimeout: int(0, 'time allowed to in-flight exchanges at shutdown, ms'),
      },
    },
    expressions: {
      type: 'object',
      additionalProperties: false,
      properties: {
        timeout: int(1, 'longest time one JSONata evaluation may run, ms'),
        maxDepth: int(10, 'deepest recursion of one JSONata evaluation'),
      },
    },
  },
} as const;

/** The settings with defaults filled in, and the problems of the section (positions from `src`). */
export function readEngineSettings(raw: unknown, src?: YamlSource): { settings: EngineSettings; diagnostics: Diagnostic[] } {
  const diagnostics = src ? checkConfig(raw ?? {}, engineSettingsSchema as unknown as Record<string, unknown>, src, ['engine'], 'engine settings') : [];
  const v = (raw && typeof raw === 'object' ? raw : {}) as { server?: Partial<ServerSettings>; expressions?: Partial<ExpressionSettings> };
  return {
    settings: {
      server: { ...ENGINE_DEFAULTS.server, ...v.server },
      expressions: { ...ENGINE_DEFAULTS.expressions, ...v.expressions },
    },
    diagnostics,
  };
}
