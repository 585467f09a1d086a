// Hand-written baseline of the customer-screening route: node:http, the request schema compiled
// once by ajv, the vendor calls through an undici Pool (create-and-screen, then every page of each
// alert's risks, four alerts at a time), the mappings of routes/screenvendor-screening/*.jsonata as
// plain JavaScript, a reply with content-length. `node --import tsx bench/screenvendor-screening/baseline.ts
// <vendor URL> <api key>` prints its URL.
import { createServer, type ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import { Pool } from 'undici';
import { createAjv } from '../../engine/schemas/schemas.ts';

const [vendor, apiKey] = process.argv.slice(2);
const PAGE_SIZE = 50;
const PARALLEL = 4;
const ORDER = ['Sanctions', 'Warnings', 'Fitness and Probity', 'Watchlists', 'PEPs', 'Adverse Media'];
const STRONG = ['aka_exact', 'name_variation', 'equivalent_name', 'removed_personal_title', 'phonetic_name'];
const validate = createAjv().compile<any>(
  JSON.parse(readFileSync('routes/screenvendor-screening/schemas/customer-screening-request.schema.json', 'utf8')),
);
const pool = new Pool(vendor, { connections: 8 });
const headers = { 'content-type': 'application/json', 'x-api-key': apiKey };

const category = (t: string): string | undefined =>
  t.startsWith('sanction')
    ? 'Sanctions'
    : t.startsWith('warning')
      ? 'Warnings'
      : t.startsWith('fitness')
        ? 'Fitness and Probity'
        : t.startsWith('watchlist')
          ? 'Watchlists'
          : t.startsWith('pep')
            ? 'PEPs'
            : t.startsWith('adverse-media')
              ? 'Adverse Media'
              : undefined;
const strength = (m: string[]) =>
  m.includes('name_exact') ? 'EXACT' : m.some((v) => STRONG.includes(v)) ? 'STRONG' : 'FUZZY';
const list = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

async function vendorJson(method: 'GET' | 'POST', path: string, body?: unknown): Promise<any> {
  const r = await pool.request({ method, path, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.body.text();
  if (r.statusCode !== 200) throw new Error(`vendor ${r.statusCode}`);
  return JSON.parse(text);
}

function screeningAlert(alert: string, r: any) {
  const p = r.detail.profile;
  const ri = p.risk_indicators ?? {};
  const cats = list<string>(ri.aml_types).map(category);
  return {
    alertReference: alert,
    riskReference: r.identifier,
    riskProfileIdentifier: p.identifier,
    riskCategories: ORDER.filter((c) => cats.includes(c)),
    matchStrength: strength(list(p.match_types)),
    disposition: r.decision,
    matchedPartyDetails: {
      matchedName: p.matching_name,
      names: list<any>(p.person?.names).map((n) => n.name),
      yearOfBirth: p.person?.date_of_birth?.year,
      nationality: list(p.person?.nationality),
      gender: p.person?.gender,
      matchTypes: list(p.match_types),
      amlTypes: list(ri.aml_types),
      sanctionsLists: list<any>(ri.sanctions).map((s) => s.list_name),
      pepPositions: list<any>(ri.peps).map((s) => s.position),
      lists: list<any>(ri.lists).map((s) => s.list_name),
      adverseMedia: list<any>(ri.media).map((m) => ({ title: m.title, url: m.url, date: m.date })),
    },
  };
}

async function risksOf(alert: string): Promise<any[]> {
  const risks: any[] = [];
  for (let page = 1; ; page++) {
    const v = await vendorJson(
      'GET',
      `/v2/alerts/${encodeURIComponent(alert)}/risks?page_number=${page}&page_size=${PAGE_SIZE}`,
    );
    risks.push(...list(v.risks));
    if (!v.next) return risks;
  }
}

async function screen(b: any): Promise<unknown> {
  const p = b.person;
  const flag = b.identityProofingTaskDescription?.monitoringFlag;
  const request = {
    customer: {
      external_identifier: b.customerReference,
      person: {
        first_name: p.firstName,
        last_name: p.lastName,
        full_name: p.lastName === undefined ? p.fullName : undefined,
        date_of_birth:
          p.dateOfBirth === undefined
            ? undefined
            : {
                year: Number(p.dateOfBirth.slice(0, 4)),
                month: Number(p.dateOfBirth.slice(5, 7)),
                day: Number(p.dateOfBirth.slice(8, 10)),
              },
        nationality: p.nationality === undefined ? undefined : p.nationality,
        country_of_birth: p.countryOfBirth,
        gender: p.gender?.toLowerCase(),
        personal_identification: p.identifications?.map((i: any) => ({
          type: i.type.toLowerCase(),
          number: i.number,
          issuing_country: i.issuingCountry,
        })),
      },
    },
    configuration: { screening_configuration_identifier: b.screeningConfigurationId ?? 'default-kyc' },
    monitoring: flag === undefined ? undefined : { entity_screening: { enabled: flag === 'Y' || flag === true } },
  };
  const w = await vendorJson('POST', '/v2/workflows/sync/create-and-screen?last_sync_step=ALERTING', request);
  if (w.status === 'ERRORED') throw new Error('ERRORED');
  const ids: string[] = list<any>(w.step_details?.alerting?.alerts).map((a) => a.identifier);
  const pages: any[][] = new Array(ids.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(PARALLEL, ids.length) }, async () => {
      while (next < ids.length) {
        const i = next++;
        pages[i] = await risksOf(ids[i]);
      }
    }),
  );
  const alerts: unknown[] = [];
  ids.forEach((id, i) => {
    for (const r of pages[i]) alerts.push(screeningAlert(id, r));
  });
  const s = w.step_details;
  const enabled = w.monitoring?.entity_screening?.enabled;
  return {
    caseReference: s['customer-creation']?.customer_identifier,
    caseIdentifier: s['case-creation']?.case_identifier,
    screeningCaseReference: w.workflow_instance_identifier,
    customerReference: b.customerReference,
    screeningResult:
      s['customer-screening']?.screening_result === 'HAS_PROFILES' || alerts.length > 0 ? 'HIT' : 'NO_HIT',
    monitoringFlag:
      enabled === true
        ? 'Y'
        : enabled === false
          ? 'N'
          : flag === undefined
            ? undefined
            : flag === 'Y' || flag === true
              ? 'Y'
              : 'N',
    screeningAlerts: alerts,
  };
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res
    .writeHead(status, {
      'content-type': status < 300 ? 'application/json' : 'application/problem+json',
      'content-length': Buffer.byteLength(text),
    })
    .end(text);
}

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/health/live') return reply(res, 200, { status: 'UP' });
  if (req.method !== 'POST' || req.url !== '/customer-screening') return reply(res, 404, { status: 404 });
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    let body: any;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return reply(res, 400, { status: 400 });
    }
    if (body?.subjectType === 'COMPANY' || body?.company !== undefined)
      return reply(res, 400, { status: 400, code: 'GC025' });
    if (!validate(body)) return reply(res, 400, { status: 400, code: 'GC025', errors: validate.errors });
    screen(body).then(
      (answer) => reply(res, 200, answer),
      () => reply(res, 502, { status: 502, code: 'GC027' }),
    );
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`http://127.0.0.1:${(server.address() as any).port}\n`));
process.on('SIGTERM', () => {
  server.close();
  process.exit(0);
});
