import { z } from 'zod';

export const faultsSchema = z.object({
  /** Fraction (0..1) of requests answered 429. */
  rate429: z.number().min(0).max(1).default(0),
  /** Retry-After seconds sent with an injected 429. */
  retryAfterSeconds: z.number().int().min(0).default(1),
  /** The next N requests fail with `status5xx`. */
  burst5xx: z.number().int().min(0).default(0),
  status5xx: z.union([z.literal(500), z.literal(502), z.literal(503)]).default(503),
  /** Added to every request. */
  latencyMs: z.number().int().min(0).max(120_000).default(0),
  /** Fraction (0..1) of requests whose connection is destroyed without an answer. */
  dropRate: z.number().min(0).max(1).default(0),
  /** The next N requests are dropped. */
  dropNext: z.number().int().min(0).default(0),
  /** Only requests whose "METHOD /path" matches this regex are affected. */
  pathPattern: z
    .string()
    .refine((p) => {
      try {
        new RegExp(p);
        return true;
      } catch {
        return false;
      }
    }, 'pathPattern must be a valid regular expression')
    .optional(),
});

export type FaultConfig = z.infer<typeof faultsSchema>;

export type FaultDecision =
  | { kind: 'none'; latencyMs: number }
  | { kind: '429'; latencyMs: number; retryAfterSeconds: number }
  | { kind: '5xx'; latencyMs: number; status: 500 | 502 | 503 }
  | { kind: 'drop'; latencyMs: number };

/** Deterministic for a given seed (mulberry32), so a fault pattern can be replayed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class Faults {
  config: FaultConfig;
  #pattern: RegExp | undefined;

  constructor(
    initial: Partial<FaultConfig>,
    readonly random: () => number,
  ) {
    this.config = faultsSchema.parse(initial);
    this.#pattern = this.config.pathPattern ? new RegExp(this.config.pathPattern) : undefined;
  }

  set(partial: Partial<FaultConfig>): FaultConfig {
    this.config = faultsSchema.parse({ ...this.config, ...partial });
    this.#pattern = this.config.pathPattern ? new RegExp(this.config.pathPattern) : undefined;
    return this.config;
  }

  clear(): FaultConfig {
    this.config = faultsSchema.parse({});
    this.#pattern = undefined;
    return this.config;
  }

  decide(method: string, path: string): FaultDecision {
    const c = this.config;
    if (this.#pattern && !this.#pattern.test(`${method} ${path}`)) return { kind: 'none', latencyMs: 0 };
    const latencyMs = c.latencyMs;
    if (c.dropNext > 0) {
      c.dropNext--;
      return { kind: 'drop', latencyMs };
    }
    if (c.burst5xx > 0) {
      c.burst5xx--;
      return { kind: '5xx', latencyMs, status: c.status5xx };
    }
    if (c.dropRate > 0 && this.random() < c.dropRate) return { kind: 'drop', latencyMs };
    if (c.rate429 > 0 && this.random() < c.rate429) {
      return { kind: '429', latencyMs, retryAfterSeconds: c.retryAfterSeconds };
    }
    return { kind: 'none', latencyMs };
  }
}
