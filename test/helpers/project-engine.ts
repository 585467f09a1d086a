// An engine on a small project written to a temporary directory (or a project root already
// written), on a free port with a silent log, and a JSON POST to it that reads the answer.

import { startEngine, type EngineExtension, type RunningEngine } from '../../engine/engine.ts';
import { consoleExtension } from '../../engine/console/index.ts';
import { createLogger } from '../../engine/observability/logger.ts';
import { tmpProject } from './tmp-project.ts';

export function startProject(files: Record<string, string> | string, routes = ['routes']): Promise<RunningEngine> {
  const root = typeof files === 'string' ? files : tmpProject(files);
  return startEngine({ routes, root, port: 0, logger: createLogger('silent'), processEnv: {} });
}

/** The same with the console on: the project's `dev` environment file turns it on (engine.console). */
export function startConsoleProject(
  files: Record<string, string> | string,
  routes = ['routes'],
): Promise<RunningEngine> {
  const list: EngineExtension[] = [];
  list.push(consoleExtension(() => list));
  return startEngine({
    routes,
    root: typeof files === 'string' ? files : tmpProject(files),
    env: 'dev',
    port: 0,
    logger: createLogger('silent'),
    extensions: list,
    processEnv: {},
  });
}

export async function postJson(
  engine: RunningEngine,
  path: string,
  body: unknown = {},
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${engine.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}
