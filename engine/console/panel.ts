// The console's extension point: an engine extension that has something to show or drive (say,
// simulators: their recorded requests, received events, faults, webhook triggers) contributes a
// panel. The console serves its description at GET /console/api/panels/<id> and passes
// /console/api/panels/<id>/<action> to `handle`. The engine library knows only this interface.

import type { RunningEngine } from '../engine.ts';

export interface PanelAnswer {
  status: number;
  body?: unknown;
}

export interface ConsolePanel {
  /** URL segment and page name (`simulators`) */
  id: string;
  title: string;
  /** what the page shows first */
  describe(): unknown | Promise<unknown>;
  /**
   * An action or a read below the panel (`GET requests?sim=acme`, `POST faults`): bad input
   * is a 400 naming the field, never a throw.
   */
  handle(
    method: string,
    action: string,
    query: Record<string, string>,
    body: unknown,
  ): PanelAnswer | Promise<PanelAnswer>;
}

/** An extension with panels: implements this next to its EngineExtension hooks. */
export interface ConsoleContributor {
  consolePanels(engine: RunningEngine): ConsolePanel[];
}

export function isContributor(x: unknown): x is ConsoleContributor {
  return typeof (x as ConsoleContributor)?.consolePanels === 'function';
}
