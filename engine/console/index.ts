// The browser console as an engine extension (docs/console.md). When `engine.console.enabled`
// (default: on in a simulated environment, off elsewhere; ENGINE_CONSOLE_ENABLED=true|false wins),
// it subscribes its exchange recorder to the engine's spans before tracing starts, asks them
// for masked bodies (pipeline/tracing-detail.ts), and serves /console/ on the engine's
// listener once the routes are registered. Off, it does nothing at all: no tracer, no spans.

import type { EngineExtension, RunningEngine } from '../engine.ts';
import { compileSecrets, NO_SECRETS, valuesSecrets } from '../observability/mask.ts';
import type { ValuesSet } from '../config/values.ts';
import { ExchangeRecorder } from './recorder.ts';
import { mountConsole, type MountedConsole } from './http.ts';
import { consoleEnabled } from './enabled.ts';

export { consoleEnabled, CONSOLE_ENV } from './enabled.ts';

export interface ConsoleExtension extends EngineExtension {
  /** the recorder while the console is on (tests) */
  readonly recorder?: ExchangeRecorder;
}

/** What the console serves on the listener (EngineExtension.paths); cli/extensions.ts's stand-in says the same */
export const CONSOLE_PATHS = ['/console'];

/** `extensions`: the engine's other extensions (the gateway's tools, contributed panels). */
export function consoleExtension(extensions: () => EngineExtension[]): ConsoleExtension {
  let recorder: ExchangeRecorder | undefined;
  let simulated = false;
  let current: RunningEngine | undefined;
  let mounted: MountedConsole | undefined;
  const others = () => extensions().filter((x) => x.name !== 'console');
  const secretsOf = (values: ValuesSet) => compileSecrets(valuesSecrets(values));
  return {
    name: 'console',
    paths: CONSOLE_PATHS,
    get recorder() {
      return recorder;
    },

    prepare({ services, lintOnly, simulated: sim }) {
      if (lintOnly || !consoleEnabled(services.settings.console.enabled, sim)) return;
      simulated = sim;
      const r = new ExchangeRecorder(services.settings.console.exchanges);
      recorder = r;
      const { tracing } = services;
      tracing.consumers.add(r);
      tracing.detail = { bodyLimit: services.settings.console.bodyLimit, secrets: NO_SECRETS };
      tracing.recordPerSecond = services.settings.console.recordPerSecond;
      services.onClose(() => {
        tracing.consumers.delete(r);
        tracing.detail = undefined;
        tracing.recordPerSecond = undefined;
      });
    },

    start(engine) {
      if (!recorder) return;
      current = engine;
      engine.services.tracing.detail = {
        bodyLimit: engine.services.settings.console.bodyLimit,
        secrets: secretsOf(engine.values),
      };
      const m = mountConsole({ engine: () => current!, recorder, extensions: others, simulated });
      mounted = m;
      engine.services.onClose(() => m.close());
    },

    listening(engine) {
      if (!recorder) return;
      engine.services.logger.info(
        { console: `${engine.url}/console/`, exchanges: recorder.capacity },
        'console: serving /console/',
      );
    },

    reload(engine) {
      if (!recorder) return;
      current = engine;
      engine.services.tracing.detail = {
        bodyLimit: engine.services.settings.console.bodyLimit,
        secrets: secretsOf(engine.values),
      };
      mounted?.reload();
    },
  };
}
