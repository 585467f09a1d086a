import { spawnUrl, stop } from './bench/lib/harness.ts';
const tsx = ['--import', 'tsx'];
const sim = await spawnUrl([...tsx, 'bench/lib/sim-process.ts']);
const base = await spawnUrl([...tsx, 'bench/payments/baseline.ts', sim.url]);
const eng = await spawnUrl(['bin/engine.js', 'run', 'routes/hubvendor-payment', '--port', '0', '--set', `hubvendor-base-url=${sim.url}`], { LOG_LEVEL: 'warn' });
const body = JSON.stringify({ paymentType: 'SEPA', requestedExecutionDate: '2030-01-15', originatorAccount: { name: 'Acme GmbH', identification: { identification: 'DE89370400440532013000', schemeName: 'IBAN' } }, transferTransactionInformation: { instructedAmount: { amount: '100.25', currencyCode: 'EUR' }, counterparty: { name: 'Jane Doe' }, counterpartyAccount: { identification: { identification: 'FR1420041010050500013M02606', schemeName: 'IBAN' } }, remittanceInformation: 'Invoice 42' } });
for (const p of [base, eng]) {
  const r = await fetch(p.url + '/payments/payment-orders', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const j: any = await r.json(); delete j.createdAt; delete j.bankReferenceId; delete j.paymentInstruction;
  console.log(r.status, JSON.stringify(j));
}
await stop(eng); await stop(base); await stop(sim);
