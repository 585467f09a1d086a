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

/**
 * Traffic an extension makes itself (demo requests, say): the exchanges of `routes`, and those
 * continuing their traces, are marked with `origin`; the Exchanges page offers to hide them.
 */
export interface ExchangeOrigin {
  origin: string;
  /** what the page's switch calls them: `demo traffic` */
  label: string;
  routes: string[];
}

/** A key the Gateway page's try-it form offers (`label`: whose it is and what it may call). */
export interface TryKey {
  label: string;
  key: string;
}

/** An extension with panels: implements this next to its EngineExtension hooks. */
export interface ConsoleContributor {
  consolePanels(engine: RunningEngine): ConsolePanel[];
  consoleOrigins?(): ExchangeOrigin[];
  /** subscription keys the try-it form offers: published ones only (a demo's), never a real key */
  consoleTryKeys?(): TryKey[];
}

export function isContributor(x: unknown): x is ConsoleContributor {
  return typeof (x as ConsoleContributor)?.consolePanels === 'function';
}
