// A screening vendor for the screening benchmark: the two calls a screening makes
// (create-and-screen, then every page of each alert's risks), with as many risks as the screened
// person's last name says: `Risks<N>` gives N risks in alerts of at most 250, anyone else none.
// The sandbox simulator only knows its few demo profiles. Prints its URL.
import { createServer, type ServerResponse } from 'node:http';

const API_KEY = 'bench-screenvendor-api-key';
const PER_ALERT = 250;
const AML = [
  ['sanction', 'pep-class-1'],
  ['warning'],
  ['adverse-media', 'adverse-media-financial-crime'],
  ['watchlist'],
  ['fitness-probity'],
  ['pep-class-2'],
];
const MATCH = [['name_exact'], ['name_variation'], ['name_fuzzy'], ['aka_exact', 'phonetic_name']];

const risk = (alert: string, i: number) => ({
  identifier: `RSK-${alert}-${i}`,
  type: 'screening',
  decision: 'NOT_REVIEWED',
  created_at: '2026-11-23T00:00:00Z',
  updated_at: '2026-11-23T00:00:00Z',
  detail: {
    profile: {
      identifier: `PRF-${i}`,
      match_types: MATCH[i % MATCH.length],
      matching_name: `Person ${i}`,
      person: {
        names: [{ name: `Person ${i}`, type: 'primary' }],
        date_of_birth: { year: 1950 + (i % 50) },
        nationality: ['GB'],
        gender: i % 2 ? 'male' : 'female',
      },
      risk_indicators: {
        aml_types: AML[i % AML.length],
        sanctions: i % 3 ? [] : [{ list_name: 'Demo List', listed_at: '2022-03-01' }],
        peps: i % 4 ? [] : [{ position: 'Minister', country: 'GB', class: 'pep-class-1' }],
        lists: [],
        media: i % 5 ? [] : [{ title: 'Demo Times', url: 'https://news.example/1', date: '2023-05-14' }],
      },
    },
  },
});

const alerts = new Map<string, ReturnType<typeof risk>[]>();
let seq = 0;

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}

const server = createServer((req, res) => {
  if (req.headers['x-api-key'] !== API_KEY) return send(res, 401, { title: 'Unauthorized' });
  const url = new URL(req.url ?? '/', 'http://sim');
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    if (req.method === 'POST' && url.pathname === '/v2/workflows/sync/create-and-screen') {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const n = Number(/^Risks(\d+)$/.exec(body.customer?.person?.last_name ?? '')?.[1] ?? 0);
      const ids: string[] = [];
      for (let from = 0; from < n; from += PER_ALERT) {
        const id = `ALR-${++seq}`;
        alerts.set(
          id,
          Array.from({ length: Math.min(PER_ALERT, n - from) }, (_, i) => risk(id, from + i)),
        );
        ids.push(id);
        if (alerts.size > 10_000) alerts.delete(alerts.keys().next().value!);
      }
      return send(res, 200, {
        workflow_instance_identifier: `WF-${seq}`,
        workflow_type: 'create-and-screen',
        status: 'COMPLETED',
        step_details: {
          'customer-creation': { customer_identifier: `CUS-${body.customer.external_identifier}`, version: 1 },
          'customer-screening': { screening_result: n ? 'HAS_PROFILES' : 'NO_PROFILES' },
          alerting: { alerts: ids.map((identifier) => ({ identifier })) },
          'case-creation': { case_identifier: `CASE-${seq}` },
        },
        monitoring: { entity_screening: { enabled: false } },
      });
    }
    const m = /^\/v2\/alerts\/([^/]+)\/risks$/.exec(url.pathname);
    const all = m ? alerts.get(decodeURIComponent(m[1])) : undefined;
    if (req.method === 'GET' && all) {
      const page = Number(url.searchParams.get('page_number') ?? 1);
      const size = Number(url.searchParams.get('page_size') ?? 20);
      const start = (page - 1) * size;
      const more = start + size < all.length;
      return send(res, 200, {
        risks: all.slice(start, start + size),
        page_number: page,
        page_size: size,
        total_count: all.length,
        next: more ? `${url.pathname}?page_number=${page + 1}&page_size=${size}` : null,
      });
    }
    send(res, 404, { title: 'Not found' });
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`http://127.0.0.1:${(server.address() as any).port}\n`));
process.on('SIGTERM', () => {
  server.close();
  process.exit(0);
});
