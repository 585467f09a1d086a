// A reviewer's decision on one risk of an alert (NOT_REVIEWED, IN_REVIEW, FALSE_POSITIVE, TRUE_POSITIVE).

import type { SimRequest, SimResponse } from '../lib/sim-server.ts';
import { DECISIONS } from './model.ts';
import { now, SimProblem } from './problem.ts';
import type { ScreenState } from './state.ts';

export function decideHandler(state: ScreenState) {
  return (req: SimRequest): SimResponse => {
    const a = state.alerts.get(req.params.alert_identifier!);
    if (!a) throw new SimProblem(404, 'Not found', `alert ${req.params.alert_identifier} does not exist`);
    const r = a.risks.find((x) => x.identifier === req.params.risk_identifier);
    if (!r)
      throw new SimProblem(
        404,
        'Not found',
        `risk ${req.params.risk_identifier} does not exist on alert ${a.identifier}`,
      );
    const d = (req.body as any)?.decision;
    if (!DECISIONS.includes(d))
      throw new SimProblem(400, 'Validation error', `decision: must be one of ${DECISIONS.join(', ')}`);
    r.decision = d;
    r.updated_at = now();
    return {
      status: 200,
      body: {
        identifier: r.identifier,
        alert_identifier: a.identifier,
        decision: r.decision,
        updated_at: r.updated_at,
      },
    };
  };
}
