// Whether the console runs, decided before any of its code loads (engine/cli/extensions.ts
// imports the console only when it is on, so an engine without it starts leaner).

import { SettingError } from '../core/diagnostics.ts';

export const CONSOLE_ENV = 'ENGINE_CONSOLE_ENABLED';

/** Whether the console runs: the variable, else the setting, else on in a simulated environment only. */
export function consoleEnabled(
  setting: boolean | undefined,
  simulated: boolean,
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  const v = env[CONSOLE_ENV]?.trim().toLowerCase();
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  if (v) throw new SettingError(`${CONSOLE_ENV} must be true or false (got ${JSON.stringify(env[CONSOLE_ENV])})`);
  return setting ?? simulated;
}
