// Long tool calls as tasks (MCP tasks extension `io.modelcontextprotocol/tasks`, 2026-07-28,
// ext-tasks specification/2026-07-28/tasks.md): for a client that declares the extension in the
// request's capabilities, a `task: optional` tool answers a CreateTaskResult (`resultType: "task"`)
// at once, the route runs on in this engine, and `tasks/get` reports `working` with a status
// message, then `completed` with the CallToolResult inlined (a tool error is `completed` too, with
// isError), or `failed` with a JSON-RPC error. The task's state lives in the engine's store
// (memory, or Redis with engine.store.redis, so any replica answers tasks/get); the work itself runs
// in the engine that accepted the call. Bounded: at most `maxRunning` tasks run in one engine
// (gateway.tasks.maxRunning; a call beyond that waits for its result, as without the extension),
// and every task is kept `ttlMs` from its creation (gateway.tasks.ttlSeconds), then forgotten. A
// task belongs to the subscription and user that started it; to anyone else it does not exist.

import { randomBytes } from 'node:crypto';
import { Gauge, type Registry } from 'prom-client';
import type { RecordSet } from '../store/store.ts';

/** The extension's identifier in capabilities. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

interface TaskRecord {
  taskId: string;
  owner: string;
  status: 'working' | 'completed' | 'failed' | 'cancelled';
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  /** completed: the CallToolResult, as JSON text */
  result?: string;
  /** failed: the JSON-RPC error */
  error?: { code: number; message: string };
}

/** The client declared the tasks extension in this request's capabilities. */
export function declaresTasks(capabilities: unknown): boolean {
  const ext = (capabilities as any)?.extensions?.[TASKS_EXTENSION];
  return ext !== null && typeof ext === 'object';
}

export class GatewayTasks {
  /** tasks whose work has not ended yet, in this engine */
  running = 0;

  constructor(
    private records: RecordSet,
    private ttlMs: number,
    private maxRunning: number,
    /** the polling interval suggested to clients, ms */
    private pollMs = 1000,
  ) {}

  /** Room for one more task in this engine. */
  get hasRoom(): boolean {
    return this.running < this.maxRunning;
  }

  /**
   * Creates the task (durably: tasks/get finds it once this resolves) and runs `work` in the
   * background; resolves with the CreateTaskResult's members (no braces). `work` resolves with the
   * CallToolResult's JSON, or rejects with a JSON-RPC error.
   */
  async start(owner: string, statusMessage: string, work: () => Promise<string>): Promise<string> {
    const now = new Date().toISOString();
    const rec: TaskRecord = {
      taskId: randomBytes(16).toString('base64url'),
      owner,
      status: 'working',
      statusMessage,
      createdAt: now,
      lastUpdatedAt: now,
    };
    await this.save(rec);
    this.running++;
    void work()
      .then(
        (result) => this.finish(rec, { status: 'completed', statusMessage: 'Done', result }),
        (e: unknown) =>
          this.finish(rec, {
            status: 'failed',
            statusMessage: 'The call failed',
            error: { code: -32603, message: e instanceof Error ? e.message.slice(0, 200) : 'Internal error' },
          }),
      )
      .finally(() => this.running--);
    return this.members(rec);
  }

  /** The task as tasks/get answers it (members, no braces), or undefined: unknown, expired or another's. */
  async get(taskId: string, owner: string): Promise<string | undefined> {
    const rec = await this.load(taskId, owner);
    if (!rec) return undefined;
    const inline =
      rec.status === 'completed'
        ? `,"result":${rec.result}`
        : rec.status === 'failed'
          ? `,"error":${JSON.stringify(rec.error)}`
          : '';
    return this.members(rec) + inline;
  }

  /**
   * tasks/cancel: acknowledged for a known task; cooperative, and a payment batch handed to the
   * vendor is not called back, so the task goes on to its result (the specification allows it).
   */
  async known(taskId: string, owner: string): Promise<boolean> {
    return (await this.load(taskId, owner)) !== undefined;
  }

  private async load(taskId: string, owner: string): Promise<TaskRecord | undefined> {
    if (typeof taskId !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(taskId)) return undefined;
    const raw = await this.records.get(taskId);
    const rec = raw === undefined ? undefined : (JSON.parse(raw) as TaskRecord);
    return rec && rec.owner === owner ? rec : undefined;
  }

  private async finish(rec: TaskRecord, end: Partial<TaskRecord>): Promise<void> {
    const done = { ...rec, ...end, lastUpdatedAt: new Date().toISOString() };
    const left = Date.parse(rec.createdAt) + this.ttlMs - Date.now();
    // a store failing now loses the result: tasks/get then answers the task as unknown once it expires
    if (left > 0)
      try {
        await this.save(done, left);
      } catch {
        /* the store is down: the result is lost (the audit trail still has the call) */
      }
  }

  private save(rec: TaskRecord, ttlMs = this.ttlMs): void | Promise<void> {
    return this.records.set(rec.taskId, JSON.stringify(rec), ttlMs);
  }

  private members(rec: TaskRecord): string {
    return `"taskId":${JSON.stringify(rec.taskId)},"status":"${rec.status}"${rec.statusMessage ? `,"statusMessage":${JSON.stringify(rec.statusMessage)}` : ''},"createdAt":"${rec.createdAt}","lastUpdatedAt":"${rec.lastUpdatedAt}","ttlMs":${this.ttlMs},"pollIntervalMs":${this.pollMs}`;
  }
}

/**
 * `gateway_tasks_running`: the tasks running in this engine now, read at each scrape from the
 * gateway's current tasks (one gauge per registry: a reload or a second start keeps it).
 */
export function taskMetrics(registry: Registry, of: () => GatewayTasks | undefined): void {
  if (registry.getSingleMetric('gateway_tasks_running')) return;
  new Gauge({
    name: 'gateway_tasks_running',
    help: 'Tool calls running as tasks in this engine (at most gateway.tasks.maxRunning)',
    registers: [registry],
    collect() {
      this.set(of()?.running ?? 0);
    },
  });
}
