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
