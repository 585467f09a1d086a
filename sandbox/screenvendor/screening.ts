// The sync create-and-screen workflow: creates (or versions) the customer, opens a case and
// raises alerts for the watchlist hits (./profiles.ts) that are not muted.

import { randomUUID } from 'node:crypto';
import type { SimRequest, SimResponse } from '../lib/sim-server.ts';
import type { Case, Customer } from './model.ts';
import { isObj, now, SimProblem } from './problem.ts';
import { matchProfiles } from './profiles.ts';
import type { ScreenState } from './state.ts';

/** The request's first problem, or its customer, person and monitoring flag. */
function checkRequest(req: SimRequest): {
  c: Record<string, any>;
  p: Record<string, any>;
  enabled: boolean | undefined;
} {
  const step = req.query.last_sync_step;
  if (step !== undefined && !['CUSTOMER_CREATION', 'SCREENING', 'ALERTING'].includes(step)) {
    throw new SimProblem(400, 'Validation error', `last_sync_step: unknown step '${step}'`);
  }
  const b = req.body;
  if (!isObj(b) || !isObj(b.customer)) throw new SimProblem(400, 'Validation error', 'customer: is required');
  const c = b.customer;
  if (isObj(c.company))
    throw new SimProblem(
      400,
      'Invalid workflow_type: create-and-screen is for person customers only',
      'customer.company is not supported by this workflow',
    );
  if (typeof c.external_identifier !== 'string' || !c.external_identifier)
    throw new SimProblem(400, 'Validation error', 'customer.external_identifier: is required');
  const p = c.person;
  if (!isObj(p) || !(p.last_name || p.full_name))
    throw new SimProblem(
      400,
      'Validation error',
      'customer.person.last_name or customer.person.full_name: is required',
    );
  const config = b.configuration?.screening_configuration_identifier;
  if (typeof config !== 'string' || !config)
    throw new SimProblem(400, 'Validation error', 'configuration.screening_configuration_identifier: is required');
  const enabled = b.monitoring?.entity_screening?.enabled;
  if (enabled !== undefined && typeof enabled !== 'boolean')
    throw new SimProblem(400, 'Validation error', 'monitoring.entity_screening.enabled: must be a boolean');
  return { c, p, enabled };
}

/** The customer with this external identifier, a new version of it, or a new one. */
function upsertCustomer(state: ScreenState, externalIdentifier: string, p: Record<string, any>): Customer {
  let customer = state.customers.get(state.byExternal.get(externalIdentifier) ?? '');
  if (customer) {
    customer.version++;
    customer.person = p;
  } else {
    customer = {
      identifier: state.id('CUS'),
      external_identifier: externalIdentifier,
      version: 1,
      person: p,
      monitoring: { enabled: false },
      cases: [],
    };
    state.customers.set(customer.identifier, customer);
    state.byExternal.set(customer.external_identifier, customer.identifier);
  }
  return customer;
}

export function createAndScreenHandler(state: ScreenState) {
  return (req: SimRequest): SimResponse => {
    const { c, p, enabled } = checkRequest(req);
    const customer = upsertCustomer(state, c.external_identifier, p);
    if (enabled !== undefined) customer.monitoring.enabled = enabled;

    const kase: Case = {
      identifier: state.id('CASE'),
      customer_identifier: customer.identifier,
      alert_identifiers: [],
      created_at: now(),
    };
    state.cases.set(kase.identifier, kase);
    customer.cases.push(kase.identifier);
    const hits = matchProfiles(p).filter((m) => !state.muted(customer.identifier, m.profile.identifier));
    // strong matches (exact, variation) and fuzzy ones go to separate alerts
    const strong = hits.filter((h) => h.matchType !== 'name_fuzzy');
    const fuzzy = hits.filter((h) => h.matchType === 'name_fuzzy');
    for (const group of [strong, fuzzy])
      if (group.length)
        state.newAlert(
          kase,
          group.map((h) => state.riskOf(h.profile, h.matchType)),
        );

    return {
      status: 200,
      body: {
        workflow_instance_identifier: randomUUID(),
        workflow_type: 'create-and-screen',
        status: 'COMPLETED',
        step_details: {
          'customer-creation': { customer_identifier: customer.identifier, version: customer.version },
          'customer-screening': { screening_result: hits.length ? 'HAS_PROFILES' : 'NO_PROFILES' },
          alerting: { alerts: kase.alert_identifiers.map((identifier) => ({ identifier })) },
          'case-creation': { case_identifier: kase.identifier },
        },
        monitoring: { entity_screening: { enabled: customer.monitoring.enabled } },
      },
    };
  };
}
