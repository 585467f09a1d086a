import jsonata from 'jsonata';
import { compileFast } from '../engine/runtime/fast-jsonata.ts';
import { FUNCTIONS } from '../engine/runtime/functions.ts';
const INPUT = { body: { buyCurrency: 'EUR', sellCurrency: 'USD', amount: 1250.5, iban: 'DE89 3704 0044 0532 0130 00', firstName: 'Ada', lastName: 'Lovelace' }, headers: {}, query: { validate_only: 'true' }, params: { externalReferenceNo: 'EXT-42' } };
const srcs = {
  concat: "body.firstName & ' ' & body.lastName & ' (' & body.amount & ' ' & body.buyCurrency & ')'",
  concatStr: "body.firstName & ' ' & body.lastName",
  num: "body.amount & ''",
  obj4: '{"a": body.buyCurrency, "b": body.sellCurrency, "c": params.externalReferenceNo, "d": body.amount}',
  cond: "body.amount ? body.amount : '100'",
  eq: "query.validate_only = 'true'",
  iban: '$ibanElectronic(body.iban)',
  ibanRaw: 'RAW',
};
for (const [k, src] of Object.entries(srcs)) {
  let f: any;
  if (src === 'RAW') f = () => FUNCTIONS.ibanElectronic.fn(INPUT.body.iban);
  else f = compileFast(jsonata(src).ast(), FUNCTIONS)!;
  for (let i = 0; i < 200000; i++) f(INPUT);
  const t = performance.now(); const N = 1_000_000;
  for (let i = 0; i < N; i++) f(INPUT);
  console.log(k.padEnd(10), (((performance.now() - t) * 1e6) / N).toFixed(0), 'ns');
}
