// The gateway as the extension the CLI registers (index.ts makes it): what the console and the
// gateway's commands (commands.ts) read of it.

import type { CliExtension } from '../cli-extension.ts';
import type { GatewaySettings } from './config.ts';
import type { Tool } from './tools.ts';
import type { TokenVerifier } from './jwt.ts';
import type { Limiter } from './rate-limit.ts';
import type { McpGateway } from './mcp.ts';
import type { Confirmations } from './confirmation.ts';
import type { UrlConfirmations } from './url-confirmation.ts';
import type { ConfirmPage } from './confirm-page.ts';
import type { GatewayTasks } from './tasks.ts';

export interface GatewayExtension extends CliExtension {
  /** tools of the last load, with their digests */
  readonly tools: Tool[];
  /** the tools files of the last load */
  readonly toolFiles: Set<string>;
  /** the running gateway (after start), for tests */
  readonly running?: {
    gateway: McpGateway;
    verifier: TokenVerifier;
    limiter: Limiter;
    settings: GatewaySettings;
    served: Tool[];
    /** kept across reloads: a confirmation asked before a reload is answerable after it */
    confirmations: Confirmations;
    /** kept across reloads too: the pending confirmations of 2025-11-25 clients */
    urlConfirmations: UrlConfirmations;
    /** tool calls running as tasks, kept across reloads */
    tasks: GatewayTasks;
    /** the confirmation page of those clients, with the settings of the last load */
    page: ConfirmPage;
  };
}
