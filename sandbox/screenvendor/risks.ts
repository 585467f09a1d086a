// An alert's risks, paged (page_number from 1, page_size up to 100, a `next` link while more remain).

import type { SimRequest, SimResponse } from '../lib/sim-server.ts';
import { ALERT_RISKS_PATH } from './model.ts';
import { SimProblem } from './problem.ts';
import type { ScreenState } from './state.ts';

export function listRisksHandler(state: ScreenState) {
  return (req: SimRequest): SimResponse => {
    const a = state.alerts.get(req.params.alert_identifier!);
    if (!a) throw new SimProblem(404, 'Not found', `alert ${req.params.alert_identifier} does not exist`);
    const pageNumber = req.query.page_number === undefined ? 1 : Number(req.query.page_number);
    const pageSize = req.query.page_size === undefined ? 20 : Number(req.query.page_size);
    if (!Number.isInteger(pageNumber) || pageNumber < 1)
      throw new SimProblem(400, 'Validation error', 'page_number: must be an integer >= 1');
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 100)
      throw new SimProblem(400, 'Validation error', 'page_size: must be an integer from 1 to 100');
    const start = (pageNumber - 1) * pageSize;
    const risks = a.risks.slice(start, start + pageSize);
    const more = start + pageSize < a.risks.length;
    return {
      status: 200,
      body: {
        risks,
        page_number: pageNumber,
        page_size: pageSize,
        total_count: a.risks.length,
        next: more
          ? `${ALERT_RISKS_PATH.replace('{alert_identifier}', encodeURIComponent(a.identifier))}?page_number=${pageNumber + 1}&page_size=${pageSize}`
          : null,
      },
    };
  };
}
