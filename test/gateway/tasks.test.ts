// The ACH credit batch tool as a task (MCP tasks extension io.modelcontextprotocol/tasks,
// 2026-07-28): a client declaring the extension confirms the batch (input_required), gets a task
// handle at once and polls tasks/get to the vendor's answer; without the extension the confirmed
// call waits for it. Only the task's own user finds it; tasks/get needs the extension and the
// Mcp-Name header naming the task. gateway.tasks (kept 30 min and at most 2 at once here) bounds
// them, and gateway_tasks_running counts the running ones.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { signSandboxToken } from '../../sandbox/idp/index.ts';
import { gatewayExtension } from '../../engine/gateway/index.ts';
import type { AuditEntry } from '../../engine/gateway/audit-hook.ts';
import type { Achvendor } from '../../sandbox/achvendor/index.ts';

const V = '2026-07-28';
const KEY = { 'ocp-gateway-subscription-key': 'sandbox-demo-subscription-key' };
const TASKS = { elicitation: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } };

let e: TestEngine;
let alice: string;
let bob: string;
let id = 0;
const audited: AuditEntry[] = [];

function batch(ref: string) {
  return {
    batch_reference: ref,
    sec_code: 'PPD',
    company_name: 'ACME PAYROLL',
    company_identification: '1234567890',
    company_entry_description: 'PAYROLL',
    effective_entry_date: '2099-01-15',
    entries: [
      {
        entry_reference: 'E-1',
        transaction_code: '22',
        receiving_dfi_routing: '021000021',
        account_number: '123456781',
        amount_minor: 125000,
        individual_name: 'JANE DOE',
      },
      {
        entry_reference: 'E-2',
        transaction_code: '32',
        receiving_dfi_routing: '011000015',
        account_number: '123456782',
        amount_minor: 50050,
        individual_name: 'JOHN ROE',
      },
    ],
  };
}

/** A 2026-07-28 request of `method` (Mcp-Name: `name`) as alice unless `token` says otherwise. */
function m26(
  method: string,
  name: string | undefined,
  params: Record<string, unknown>,
  caps: object = TASKS,
  token = alice,
) {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': V,
    'io.modelcontextprotocol/clientInfo': { name: 'tasks-test', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': caps,
  };
  return e.request(
    'POST',
    '/mcp',
    { jsonrpc: '2.0', id: ++id, method, params: { ...params, _meta: meta } },
    {
      ...KEY,
      authorization: `Bearer ${token}`,
      'mcp-protocol-version': V,
      'mcp-method': method,
      ...(name !== undefined ? { 'mcp-name': name } : {}),
    },
  );
}

/** The confirmed call of the batch tool: asked, then accepted. */
async function confirmedCall(args: Record<string, unknown>, caps: object = TASKS) {
  const ask = await m26('tools/call', 'submitAchCreditBatch', { name: 'submitAchCreditBatch', arguments: args }, caps);
  expect(ask.body.result.resultType).toBe('input_required');
  const msg = ask.body.result.inputRequests.confirm.params.message as string;
  expect(msg).toContain('Entries: 2, total 1750.50 USD');
  expect(msg).toContain('1234****6781');
  expect(msg).not.toContain('123456781');
  return m26(
    'tools/call',
    'submitAchCreditBatch',
    {
      name: 'submitAchCreditBatch',
      arguments: args,
      inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
      requestState: ask.body.result.requestState,
    },
    caps,
  );
}

/** `gateway_tasks_running` as /metrics shows it now. */
async function tasksRunning(): Promise<number> {
  const text = (await e.request('GET', '/metrics')).body as string;
  const line = text.split('\n').find((l) => l.startsWith('gateway_tasks_running '));
  expect(line, 'gateway_tasks_running on /metrics').toBeDefined();
  return Number(line!.split(' ')[1]);
}

beforeAll(async () => {
  e = await startTestEngine({
    extensions: [gatewayExtension({ audit: { record: (x) => audited.push(x) } })],
    // the shipped 3600 s and 100 are pinned by test/config/spec-numbers.test.ts
    set: { 'gateway.tasks.ttlSeconds': '1800', 'gateway.tasks.maxRunning': '2' },
  });
  alice = await signSandboxToken({ sub: 'alice' });
  bob = await signSandboxToken({ sub: 'bob' });
});
afterAll(async () => {
  await e?.close();
});

describe('the ACH credit batch tool as a task', () => {
  it('server/discover announces the tasks extension', async () => {
    const r = await m26('server/discover', undefined, {});
    expect(r.body.result.capabilities.extensions).toEqual({ 'io.modelcontextprotocol/tasks': {} });
  });

  it('declared: a task handle at once, tasks/get reports it working or done, then the final result', async () => {
    const r = await confirmedCall(batch(`TASK-${Date.now()}`));
    expect(r.status).toBe(200);
    const task = r.body.result;
    expect(task).toMatchObject({ resultType: 'task', status: 'working', ttlMs: 1_800_000 });
    expect(task.statusMessage).toContain('submitAchCreditBatch');
    expect(typeof task.taskId).toBe('string');

    let got: any;
    for (let i = 0; i < 50; i++) {
      got = (await m26('tasks/get', task.taskId, { taskId: task.taskId })).body;
      expect(got.result.resultType).toBe('complete');
      if (got.result.status !== 'working') break;
      await new Promise((res) => setTimeout(res, 100));
    }
    expect(got.result.status).toBe('completed');
    expect(got.result.result.isError).toBe(false);
    expect(got.result.result.structuredContent).toMatchObject({ direction: 'credit', entry_count: 2 });
    expect(got.result.result.structuredContent.batch_id).toBeTruthy();
    expect(audited.filter((a) => a.kind === 'call' && a.tool === 'submitAchCreditBatch').map((a) => a.outcome)).toEqual(
      ['ok'],
    );

    // another user: as if it did not exist; no extension declared: -32021; a header naming another task: -32020
    const other = await m26('tasks/get', task.taskId, { taskId: task.taskId }, TASKS, bob);
    expect(other.body.error.code).toBe(-32602);
    const undeclared = await m26('tasks/get', task.taskId, { taskId: task.taskId }, { elicitation: {} });
    expect(undeclared.status).toBe(400);
    expect(undeclared.body.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } },
    });
    const mismatch = await m26('tasks/get', 'another-task', { taskId: task.taskId });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.error.code).toBe(-32020);
    const unknown = await m26('tasks/get', 'no-such-task', { taskId: 'no-such-task' });
    expect(unknown.body.error.code).toBe(-32602);
    // cancel is acknowledged (cooperative: a batch handed to the vendor goes on)
    const cancel = await m26('tasks/cancel', task.taskId, { taskId: task.taskId });
    expect(cancel.body.result.resultType).toBe('complete');
  });

  it('not declared: the confirmed call waits and answers the batch', async () => {
    const r = await confirmedCall(batch(`SYNC-${Date.now()}`), { elicitation: {} });
    expect(r.body.result.resultType).toBe('complete');
    expect(r.body.result.isError).toBe(false);
    expect(r.body.result.structuredContent).toMatchObject({ direction: 'credit', entry_count: 2 });
  });

  it('gateway.tasks.maxRunning: two tasks run, the gauge says 2; the third call waits for its result; 0 once they end', async () => {
    expect(await tasksRunning()).toBe(0);
    // the vendor answers the first two batches late: their tasks stay running meanwhile
    const ach = (e.sandbox.services.achvendor as Achvendor).server;
    ach.addFault({ method: 'POST', path: 'submitcreditbatch', delayMs: 2500, times: 2 });
    try {
      const [a, b] = await Promise.all([
        confirmedCall(batch(`LIMIT-A-${Date.now()}`)),
        confirmedCall(batch(`LIMIT-B-${Date.now()}`)),
      ]);
      expect([a.body.result.resultType, b.body.result.resultType]).toEqual(['task', 'task']);
      expect(await tasksRunning()).toBe(2);
      // the limit reached: the third call is no task, it answers the vendor's result itself
      const c = await confirmedCall(batch(`LIMIT-C-${Date.now()}`));
      expect(c.body.result.resultType).toBe('complete');
      expect(c.body.result.structuredContent).toMatchObject({ direction: 'credit', entry_count: 2 });
      // answered while the two tasks still run (the vendor holds their batches 2.5 s)
      expect(await tasksRunning()).toBe(2);
      for (const t of [a, b]) {
        let got: any;
        for (let i = 0; i < 60; i++) {
          got = (await m26('tasks/get', t.body.result.taskId, { taskId: t.body.result.taskId })).body;
          if (got.result.status !== 'working') break;
          await new Promise((res) => setTimeout(res, 100));
        }
        expect(got.result.status).toBe('completed');
      }
      expect(await tasksRunning()).toBe(0);
    } finally {
      ach.clearFaults();
    }
  });
});
