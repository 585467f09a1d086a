// In-memory records of one screenvendor instance (never module-level, so tests can run several):
// customers, cases, alerts with their risks, mutes, sent webhooks, and the ids it hands out.

import type { DemoProfile, MatchType } from './profiles.ts';
import type { Alert, Case, Customer, Mute, Risk } from './model.ts';
import { now } from './problem.ts';
import type { StoredWebhook } from './webhooks.ts';

export type ScreenState = ReturnType<typeof createScreenState>;

export function createScreenState(webhookUrl: string) {
  const seqs = new Map<string, number>();
  const state = {
    customers: new Map<string, Customer>(),
    byExternal: new Map<string, string>(),
    cases: new Map<string, Case>(),
    alerts: new Map<string, Alert>(),
    /** by `${customer}|${profile}` */
    mutes: new Map<string, Mute>(),
    webhooks: new Map<string, StoredWebhook>(),
    /** where webhooks go unless a trigger names a URL */
    webhookUrl,
    /** the next id with this prefix: CUS-000001, ... */
    id(prefix: string): string {
      const n = (seqs.get(prefix) ?? 0) + 1;
      seqs.set(prefix, n);
      return `${prefix}-${String(n).padStart(6, '0')}`;
    },
    newAlert(c: Case, risks: Risk[]): Alert {
      const a: Alert = {
        identifier: state.id('ALR'),
        case_identifier: c.identifier,
        customer_identifier: c.customer_identifier,
        risks,
        created_at: now(),
      };
      state.alerts.set(a.identifier, a);
      c.alert_identifiers.push(a.identifier);
      return a;
    },
    muted: (customer: string, profile: string) => state.mutes.has(`${customer}|${profile}`),
    riskOf: (p: DemoProfile, matchType: MatchType): Risk => riskOf(state.id('RSK'), p, matchType),
  };
  return state;
}

/** A NOT_REVIEWED screening risk about one watchlist profile. */
function riskOf(identifier: string, p: DemoProfile, matchType: MatchType): Risk {
  return {
    identifier,
    type: 'screening',
    decision: 'NOT_REVIEWED',
    created_at: now(),
    updated_at: now(),
    detail: {
      profile: {
        identifier: p.identifier,
        match_types: [matchType],
        matching_name: `${p.firstName} ${p.lastName}`,
        person: {
          names: [{ name: `${p.firstName} ${p.lastName}`, type: 'primary' }],
          ...(p.yearOfBirth ? { date_of_birth: { year: p.yearOfBirth } } : {}),
          nationality: p.nationality,
          ...(p.gender ? { gender: p.gender } : {}),
        },
        risk_indicators: {
          aml_types: p.amlTypes,
          sanctions: p.sanctions ?? [],
          peps: p.peps ?? [],
          lists: p.lists ?? [],
          media: p.media ?? [],
        },
      },
    },
  };
}
