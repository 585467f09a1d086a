// screenvendor (v2 screening API) simulator: paths, the API key, decisions and the records it keeps.

export const SANDBOX_API_KEY = 'sandbox-screenvendor-api-key';
export const API_KEY_HEADER = 'x-api-key';
export const CREATE_AND_SCREEN_PATH = '/v2/workflows/sync/create-and-screen';
export const ALERT_RISKS_PATH = '/v2/alerts/{alert_identifier}/risks';
export const RISK_DECISION_PATH = '/v2/alerts/{alert_identifier}/risks/{risk_identifier}/decision';
export const ALERT_MUTES_PATH = '/v2/alerts/mutes';
export const CUSTOMER_MONITOR_PATH = '/v2/customers/{customer_identifier}/monitor';
export const CUSTOMER_PATH = '/v2/customers/{customer_identifier}';
export const DECISIONS = ['NOT_REVIEWED', 'IN_REVIEW', 'FALSE_POSITIVE', 'TRUE_POSITIVE'] as const;
/** The fault rule that makes the next call answer like the vendor's rate limiter. */
export const rateLimitFault = (resetSeconds = 30, times = 1) => ({
  status: 429,
  body: { message: 'API rate limit exceeded' },
  headers: { 'Ratelimit-Reset': String(resetSeconds) },
  times,
});

export interface Risk {
  identifier: string;
  type: 'screening';
  decision: (typeof DECISIONS)[number];
  created_at: string;
  updated_at: string;
  detail: { profile: Record<string, unknown> };
}

export interface Customer {
  identifier: string;
  external_identifier: string;
  version: number;
  person: Record<string, any>;
  monitoring: { enabled: boolean; monitoring_profile_identifier?: string };
  cases: string[];
}

export interface Case {
  identifier: string;
  customer_identifier: string;
  alert_identifiers: string[];
  created_at: string;
}
export interface Alert {
  identifier: string;
  case_identifier: string;
  customer_identifier: string;
  risks: Risk[];
  created_at: string;
}
export interface Mute {
  identifier: string;
  profile_identifier: string;
  customer_identifier: string;
  risk_identifier: string;
  reason?: string;
  case_identifier?: string;
  custom_fields?: unknown;
  created_at: string;
}
