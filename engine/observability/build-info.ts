// What build is running: the package version (package.json beside or above this file, in the
// sources as in the built bundle), the source revision the image was built from (ENGINE_REVISION,
// set by the Dockerfile from its REVISION build argument) and the Node.js version. The CLI's
// --version and the metric engine_build_info say the same.

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export function packageVersion(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
    if (dirname(dir) === dir) return 'unknown';
  }
}

export function buildInfo(env: NodeJS.ProcessEnv = process.env): { version: string; revision: string; node: string } {
  return { version: packageVersion(), revision: env.ENGINE_REVISION || 'unknown', node: process.version };
}
