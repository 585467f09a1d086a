// The sandbox's embedded AMQP 1.0 endpoint (not the broker tests): SASL, credit, and the three
// dispositions — accepted removes, released redelivers (first_acquirer false), rejected dead-letters.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message } from 'rhea';
import {
  startAmqpEndpoint,
  type AmqpEndpoint,
  SANDBOX_AMQP_USERNAME,
  SANDBOX_AMQP_PASSWORD,
} from '../../sandbox/amqp/index.ts';
import { openConnection, publish, until } from './helpers.ts';
import { settle } from '../../engine/amqp/rhea-util.ts';

let ep: AmqpEndpoint;
const creds = () => ({ url: ep.url, username: SANDBOX_AMQP_USERNAME, password: SANDBOX_AMQP_PASSWORD });

beforeAll(async () => {
  ep = await startAmqpEndpoint();
});
afterAll(() => ep.close());

describe('embedded AMQP 1.0 endpoint', () => {
  it('refuses wrong credentials', async () => {
    await expect(openConnection({ ...creds(), password: 'wrong' })).rejects.toThrow(/refused|unreachable/);
  });

  it('delivers no more than the credit, and redelivers released messages', async () => {
    await publish(
      '/queue/e1',
      [1, 2, 3, 4].map((i) => ({ message_id: `m${i}`, body: JSON.stringify({ i }) })),
      creds(),
    );
    expect(ep.stats('e1').ready).toBe(4);
    const conn = await openConnection(creds());
    const got: { id: string; first: boolean | undefined }[] = [];
    const deliveries: any[] = [];
    const r = conn.open_receiver({ source: { address: 'e1' }, credit_window: 0, autoaccept: false });
    r.on('receiver_open', () => r.add_credit(2));
    r.on('message', (ctx) => {
      got.push({ id: String(ctx.message.message_id), first: ctx.message.first_acquirer });
      deliveries.push(ctx.delivery);
    });
    await until(() => got.length === 2, 3000, 'two deliveries');
    await new Promise((res) => setTimeout(res, 150));
    expect(got.length).toBe(2); // credit 2: no third message
    expect(ep.stats('e1').unacked).toBe(2);
    settle(deliveries[0], { outcome: 'released' });
    settle(deliveries[1], { outcome: 'accepted' });
    // rhea handles a flow frame before the dispositions read with it, so m3 and m4 may come first
    r.add_credit(3);
    await until(() => got.length === 5, 3000, 'three more deliveries');
    // the released message comes again, marked as not the first acquirer
    const again = got.findIndex((g, i) => i >= 2 && g.id === 'm1');
    expect(again, JSON.stringify(got)).toBeGreaterThanOrEqual(2);
    expect(got[again]!.first).toBe(false);
    settle(deliveries[again], { outcome: 'rejected', condition: 'amqp:decode-error', description: 'not JSON' });
    await until(() => ep.deadLetters('e1').length === 1, 3000, 'a dead letter');
    expect(ep.deadLetters('e1')[0]).toMatchObject({ condition: 'amqp:decode-error', description: 'not JSON' });
    expect(ep.stats('e1')).toMatchObject({ ready: 0, unacked: 2, accepted: 1, released: 1, rejected: 1 });
    // the unsettled one goes back when the consumer leaves
    conn.close();
    await until(() => ep.stats('e1').ready === 2, 3000, 'the unsettled message back on the queue');
    expect(ep.stats('e1').unacked).toBe(0);
  });

  it('redelivers the unsettled messages of a consumer that goes away', async () => {
    ep.publish('e2', { message_id: 'x1', body: '{}' });
    const c1 = await openConnection(creds());
    const seen: Message[] = [];
    const r1 = c1.open_receiver({ source: { address: '/queue/e2' }, credit_window: 0, autoaccept: false });
    r1.on('receiver_open', () => r1.add_credit(1));
    r1.on('message', (ctx) => seen.push(ctx.message));
    await until(() => seen.length === 1, 3000, 'first delivery');
    (c1 as any).socket.destroy();
    await until(() => ep.stats('e2').ready === 1, 3000, 'the message back on the queue');
    const c2 = await openConnection(creds());
    const r2 = c2.open_receiver({ source: { address: 'e2' }, credit_window: 0, autoaccept: true });
    r2.on('receiver_open', () => r2.add_credit(1));
    r2.on('message', (ctx) => seen.push(ctx.message));
    await until(() => seen.length === 2, 3000, 'redelivery');
    expect(seen[1]!.message_id).toBe('x1');
    expect(seen[1]!.first_acquirer).toBe(false);
    await ep.waitForEmpty('e2', 3000);
    c2.close();
  });
});
