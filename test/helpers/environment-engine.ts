// The `engine:` settings of a one-file environment (values/environments/dev.yaml in a temporary
// project), and the problems lint says of one it refuses: the store settings tests share them.

import { join } from 'node:path';
import { expect } from 'vitest';
import { loadValues } from '../../engine/config/values.ts';
import { DiagnosticError } from '../../engine/core/diagnostics.ts';
import { tmpProject } from './tmp-project.ts';

/** The environment's engine settings as the engine reads them. */
export function loadEngineSettings(envFile: string) {
  const root = tmpProject({ 'values/demo-v1.values.yaml': 'a: 1\n', 'values/environments/dev.yaml': envFile });
  return loadValues({ dir: join(root, 'values'), env: 'dev', processEnv: {} }).environment.engine;
}

/** `line:col message` of each problem of an environment file that must be refused. */
export function engineSettingsProblems(envFile: string): string[] {
  try {
    loadEngineSettings(envFile);
  } catch (e) {
    expect(e).toBeInstanceOf(DiagnosticError);
    return (e as DiagnosticError).diagnostics.map((d) => `${d.line}:${d.col} ${d.message}`);
  }
  throw new Error('accepted');
}
