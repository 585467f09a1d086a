// A bulkhead per client profile: at most `max-concurrent` calls to the client at once and a
// bounded queue of calls waiting for a place, each waiting at most `queue-timeout`; a call beyond
// both is refused at once. A hanging vendor then holds only its own places, never the engine's
// sockets, memory and event loop for the other connectors. Hand-written for the same reason as the
// breaker: admission is one comparison on the common path, with no promise unless a call waits.

export interface BulkheadSettings {
  maxConcurrent: number;
  maxQueue: number;
  /** ms a queued call waits for a place before it is refused */
  queueTimeout: number;
}

interface Waiter {
  resolve: (ok: boolean) => void;
  timer: NodeJS.Timeout;
}

export class Bulkhead {
  active = 0;
  private readonly queue: Waiter[] = [];

  constructor(readonly settings: BulkheadSettings) {}

  get queued(): number {
    return this.queue.length;
  }

  /**
   * true: a place is taken; a promise: queued, resolving true with a place or false when it waited
   * too long; false: full.
   */
  enter(): boolean | Promise<boolean> {
    if (this.active < this.settings.maxConcurrent) {
      this.active++;
      return true;
    }
    if (this.queue.length >= this.settings.maxQueue) return false;
    return new Promise<boolean>((resolve) => {
      const w: Waiter = {
        resolve,
        timer: setTimeout(() => {
          const i = this.queue.indexOf(w);
          if (i >= 0) this.queue.splice(i, 1);
          resolve(false);
        }, this.settings.queueTimeout),
      };
      w.timer.unref?.();
      this.queue.push(w);
    });
  }

  /** Gives the place back, to the longest waiting call if one waits. */
  leave(): void {
    const next = this.queue.shift();
    if (next) {
      clearTimeout(next.timer);
      next.resolve(true);
    } else this.active--;
  }
}
