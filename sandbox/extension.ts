// The sandbox as an engine extension, registered by the CLI (engine/cli/extensions.ts) and the
// test helper: in an environment with `simulated: true` it starts the simulators before the routes
// load (their URLs resolve `simulator:NAME` references), points the simulators' webhooks at the
// engine once it listens (its real port, --port or 0), adds `engine token`, and contributes the
// Sandbox page of the engine console (console-panel.ts).

import type { Command } from 'commander';
import type { CliExtension } from '../engine/cli/extensions.ts';
import type { RunningEngine } from '../engine/engine.ts';
import type { Sandbox } from './index.ts';
import { registerTokenCommand } from './token-command.ts';
import type { Achvendor } from './achvendor/index.ts';
import type { Screenvendor } from './screenvendor/index.ts';
import type { ConsoleContributor } from '../engine/console/panel.ts';
import { sandboxPanel } from './console-panel.ts';
import { SIMULATORS } from './simulators.ts';

export interface SandboxExtensionOptions {
  /** record requests on the simulators (default true; benchmarks turn it off) */
  record?: boolean;
}

export interface SandboxExtension extends CliExtension, ConsoleContributor {
  /** the running simulators (after the engine prepared an environment with `simulated: true`) */
  readonly sandbox?: Sandbox;
}

/** The route making the sandbox's demo traffic (routes/sandbox-demo/demo-payments.yaml). */
const DEMO_ROUTE = 'sandbox-demo-payments';
const DEMO_KEYS = [
  { label: 'sandbox demo key (every tool)', key: 'sandbox-demo-subscription-key' },
  { label: 'sandbox FX-only key', key: 'sandbox-fx-only-subscription-key' },
];

/** Where the screening webhook route listens (routes/screenvendor-screening/screening-webhook.yaml). */
export const SCREENING_WEBHOOK_PATH = '/webhooks/screening';

export function sandboxExtension(opts: SandboxExtensionOptions = {}): SandboxExtension {
  let sandbox: Sandbox | undefined;
  return {
    name: 'sandbox',
    get sandbox() {
      return sandbox;
    },
    // what the engine and its route tests know of the simulators: the environment they serve, their
    // names (lint refuses a reference to any other), and the ones a route test replaces with its
    // event hub stub or a closed AMQP port
    simulation: { environment: 'sandbox', simulators: SIMULATORS, standIns: { eventhub: 'event-hub', amqp: 'amqp' } },

    async prepare({ services, lintOnly, simulated: wanted }) {
      if (!wanted || lintOnly) return;
      // the simulators' code loads only in a sandbox environment
      const { startSandbox } = await import('./index.ts');
      const sb = await startSandbox({ logger: services.logger.child({ component: 'sandbox' }), record: opts.record });
      sandbox = sb;
      services.onClose(() => sb.close());
      return { simulatorUrls: sb.urls };
    },

    listening(engine: RunningEngine) {
      if (!sandbox) return;
      // ACHVENDOR_WEBHOOK_BASE_URL still wins: the engine may be reached through a proxy
      (sandbox.services.achvendor as Achvendor | undefined)?.setWebhookBaseUrl(
        process.env.ACHVENDOR_WEBHOOK_BASE_URL || engine.url,
      );
      (sandbox.services.screenvendor as Screenvendor | undefined)?.setWebhookUrl(engine.url + SCREENING_WEBHOOK_PATH);
    },

    commands(program: Command) {
      registerTokenCommand(program);
    },

    // the Sandbox page of the engine console (docs/console.md)
    consolePanels() {
      return sandbox ? [sandboxPanel(sandbox)] : [];
    },
    // the demo route's payments and what follows from them (their status messages continue its trace)
    consoleOrigins() {
      return sandbox ? [{ origin: 'demo', label: 'demo traffic', routes: [DEMO_ROUTE] }] : [];
    },
    // the gateway's demo keys, published on purpose (values/gateway.values.yaml)
    consoleTryKeys() {
      return sandbox ? DEMO_KEYS : [];
    },
  };
}
