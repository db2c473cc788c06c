/** Where this replica is in its life, as `/readyz` reports it. */
export type ReplicaPhase = 'starting' | 'ready' | 'draining';

/**
 * Whether this replica takes work. It starts `starting` (its routes answer before its leases are taken),
 * becomes `ready` once the bot has started, and `draining` for good once it is told to stop: a load
 * balancer that reads `/readyz` then sends new requests elsewhere while the replica finishes its own.
 */
export class Readiness {
  #phase: ReplicaPhase = 'starting';

  get phase(): ReplicaPhase {
    return this.#phase;
  }

  /** The bot has started: it follows its sessions and takes requests. */
  started(): void {
    if (this.#phase === 'starting') this.#phase = 'ready';
  }

  /** The replica is going away: not ready again, whatever follows. */
  drain(): void {
    this.#phase = 'draining';
  }
}

/**
 * Slack requests this replica is working on: acknowledged or not, a listener may still be calling the
 * service and Slack. A replica going away waits for them before it closes its store.
 */
export class RequestsInFlight {
  #count = 0;

  get count(): number {
    return this.#count;
  }

  /** Runs one request's work (Bolt's `next`), counted while it runs. */
  async track<T>(work: () => Promise<T>): Promise<T> {
    this.#count += 1;
    try {
      return await work();
    } finally {
      this.#count -= 1;
    }
  }
}
