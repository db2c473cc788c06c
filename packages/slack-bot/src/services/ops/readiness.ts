/** Where this replica is in its life, as `/readyz` reports it. */
export type ReplicaPhase = 'starting' | 'ready' | 'draining';

/** Something the start still waits for, named as `/readyz` says it: `slack: auth.test not answered yet`. */
export interface StartWait {
  /** What it waits for now (the first answer came, or a refusal said why it never will). */
  update(detail: string): void;
  /** Answered: no longer waited for. */
  done(): void;
}

/**
 * Whether this replica takes work. It starts `starting` (its routes answer before its leases are taken),
 * becomes `ready` once the bot has started and nothing it waits for is left (Slack's first answer), and
 * `draining` for good once it is told to stop: a load balancer that reads `/readyz` then sends new
 * requests elsewhere while the replica finishes its own. A wait that does not gate (the service: people
 * get a clear word while it is away) is said in `/readyz`'s body and never holds the replica back.
 */
export class Readiness {
  #started = false;
  #draining = false;
  readonly #waits = new Set<{ part: string; detail: string; gates: boolean }>();

  get phase(): ReplicaPhase {
    if (this.#draining) return 'draining';
    const held = [...this.#waits].some((wait) => wait.gates);
    return this.#started && !held ? 'ready' : 'starting';
  }

  /** What the replica still waits for, one line each (`part: detail`); those that don't gate say so. */
  get waiting(): string[] {
    return [...this.#waits].map(({ part, detail, gates }) =>
      gates ? `${part}: ${detail}` : `${part}: ${detail} (not waited for)`,
    );
  }

  /** The bot's start steps are done: it follows its sessions and takes requests, once nothing gates. */
  started(): void {
    this.#started = true;
  }

  /**
   * Something to wait for, by its part (`slack`, `service`): while it is, a gating wait keeps the replica
   * `starting`.
   */
  waitFor(part: string, detail: string, options: { gates?: boolean } = {}): StartWait {
    const wait = { part, detail, gates: options.gates ?? true };
    this.#waits.add(wait);
    return {
      update: (next) => {
        wait.detail = next;
      },
      done: () => {
        this.#waits.delete(wait);
      },
    };
  }

  /** The replica is going away: not ready again, whatever follows. */
  drain(): void {
    this.#draining = true;
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
