// What the route tests reached (`engine test --coverage`): every step, `choice` branch and
// on-exception handler of a route is a point registered as the route compiles, and a hit is one
// addition in a wrapper that exists only when coverage was asked for: without it the compiled
// routes are the same functions as ever.

import type { YamlPath } from '../core/yaml-source.ts';
import type { Step } from './pipeline.ts';

export type PointKind = 'step' | 'branch' | 'handler';

export interface CoveragePoint {
  route: string;
  /** the file the point is written in (a connector document for the handlers a route takes from it) */
  file: string;
  kind: PointKind;
  /** where in the file: `steps[2].choice.when[0]`, `on-exception[1]` */
  path: YamlPath;
  /** what the point is: the step kind, the branch's condition, the handler's `when` */
  label: string;
  hits: number;
}

/** The points of every route the engines of one `engine test` run loaded, merged by route, file and path. */
export class Coverage {
  private points = new Map<string, CoveragePoint>();

  /** The point at `path` of a route (the same one when another engine loads the route again). */
  point(route: string, file: string, kind: PointKind, path: YamlPath, label: string): CoveragePoint {
    const key = JSON.stringify([route, file, path]);
    let p = this.points.get(key);
    if (!p) this.points.set(key, (p = { route, file, kind, path, label, hits: 0 }));
    return p;
  }

  all(): CoveragePoint[] {
    return [...this.points.values()];
  }
}

/** `step` counting its runs into `p`. */
export function counted<S extends Step>(step: S, p: CoveragePoint): Step {
  return (ex) => {
    p.hits++;
    return step(ex);
  };
}
