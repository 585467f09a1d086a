// Muting a profile for a customer: later screenings of that customer no longer raise it.

import type { SimRequest, SimResponse } from '../lib/sim-server.ts';
import type { Mute } from './model.ts';
import { isObj, now, SimProblem } from './problem.ts';
import type { ScreenState } from './state.ts';

export function muteHandler(state: ScreenState) {
  return (req: SimRequest): SimResponse => {
    const b = req.body as Record<string, any> | undefined;
    for (const f of ['profile_identifier', 'customer_identifier', 'risk_identifier']) {
      if (!isObj(b) || typeof b[f] !== 'string' || !b[f])
        throw new SimProblem(400, 'Validation error', `${f}: is required`);
    }
    const customer = state.customers.get(b!.customer_identifier);
    if (!customer) throw new SimProblem(404, 'Not found', `customer ${b!.customer_identifier} does not exist`);
    const risk = customer.cases
      .flatMap((c) => state.cases.get(c)!.alert_identifiers)
      .flatMap((a) => state.alerts.get(a)!.risks)
      .find((r) => r.identifier === b!.risk_identifier);
    if (!risk)
      throw new SimProblem(
        404,
        'Not found',
        `risk ${b!.risk_identifier} does not exist for customer ${customer.identifier}`,
      );
    if ((risk.detail.profile as any).identifier !== b!.profile_identifier)
      throw new SimProblem(
        400,
        'Validation error',
        `profile_identifier: risk ${risk.identifier} is not about profile ${b!.profile_identifier}`,
      );
    const key = `${customer.identifier}|${b!.profile_identifier}`;
    if (state.mutes.has(key))
      throw new SimProblem(
        409,
        'Conflict',
        `profile ${b!.profile_identifier} is already muted for customer ${customer.identifier}`,
      );
    const m: Mute = {
      identifier: state.id('MUT'),
      profile_identifier: b!.profile_identifier,
      customer_identifier: customer.identifier,
      risk_identifier: risk.identifier,
      ...(typeof b!.reason === 'string' ? { reason: b!.reason } : {}),
      ...(typeof b!.case_identifier === 'string' ? { case_identifier: b!.case_identifier } : {}),
      ...(b!.custom_fields !== undefined ? { custom_fields: b!.custom_fields } : {}),
      created_at: now(),
    };
    state.mutes.set(key, m);
    return { status: 201, body: m };
  };
}
