// Customers: reading one, and turning ongoing monitoring (list-update webhooks) on or off.

import type { SimRequest, SimResponse } from '../lib/sim-server.ts';
import { now, SimProblem } from './problem.ts';
import type { ScreenState } from './state.ts';

/** PATCH monitor: the entity_screening flag and an optional monitoring profile */
export function monitorHandler(state: ScreenState) {
  return (req: SimRequest): SimResponse => {
    const customer = state.customers.get(req.params.customer_identifier!);
    if (!customer) throw new SimProblem(404, 'Not found', `customer ${req.params.customer_identifier} does not exist`);
    const b = req.body as Record<string, any> | undefined;
    const enabled = b?.entity_screening?.enabled;
    if (typeof enabled !== 'boolean')
      throw new SimProblem(400, 'Validation error', 'entity_screening.enabled: must be a boolean');
    const profile = b?.monitoring_profile_identifier;
    if (profile !== undefined && (typeof profile !== 'string' || !profile))
      throw new SimProblem(400, 'Validation error', 'monitoring_profile_identifier: must be a non-empty string');
    customer.monitoring = { enabled, ...(profile ? { monitoring_profile_identifier: profile } : {}) };
    return {
      status: 200,
      body: {
        customer_identifier: customer.identifier,
        entity_screening: { enabled },
        ...(profile ? { monitoring_profile_identifier: profile } : {}),
        updated_at: now(),
      },
    };
  };
}

export function getCustomerHandler(state: ScreenState) {
  return (req: SimRequest): SimResponse => {
    const c = state.customers.get(req.params.customer_identifier!);
    if (!c) throw new SimProblem(404, 'Not found', `customer ${req.params.customer_identifier} does not exist`);
    return {
      status: 200,
      body: {
        identifier: c.identifier,
        external_identifier: c.external_identifier,
        version: c.version,
        monitoring: c.monitoring,
        cases: c.cases,
      },
    };
  };
}
