import { readFileSync } from 'node:fs';
import { compileExpression } from '../engine/runtime/expressions.ts';
const e = compileExpression(readFileSync('transforms/hubvendor/payment-status-event.jsonata', 'utf8'));
console.log('transform fast', e.fast);
const id = compileExpression("$stableId('x', message.messageId)"); console.log('id fast', id.fast);
const s = compileExpression("body.bankReferenceId"); console.log('subj fast', s.fast);
const input = { body: { paymentOrderId: 'PO1', endToEndReference: 'E', status: 'REJECTED', statusReasonCode: 'AC04', statusDateTime: 'x' }, message: { messageId: 'm' } };
let t = performance.now(); for (let i = 0; i < 20000; i++) await e.evaluate(input); console.log('transform µs', ((performance.now() - t) / 20000 * 1000).toFixed(1));
console.log(await e.evaluate(input));
