// Lints a small project written to a temporary directory and returns its diagnostics as
// `engine lint` prints them, with file names relative to the project root.

import { relative } from 'node:path';
import { lintProject } from '../../engine/engine.ts';
import { createLogger } from '../../engine/observability/logger.ts';
import { formatDiagnostic } from '../../engine/core/diagnostics.ts';
import { tmpProject } from './tmp-project.ts';

export async function lintFiles(files: Record<string, string>): Promise<string[]> {
  const root = tmpProject(files);
  const diags = await lintProject({ routes: ['routes'], root, logger: createLogger('silent'), processEnv: {} });
  return diags.map((d) =>
    formatDiagnostic(d)
      .replaceAll(relative(process.cwd(), root) + '/', '')
      .replaceAll(root + '/', ''),
  );
}
