/**
 * Failures on demand: the next N calls of a Web API method (optionally only for one channel) answer a
 * Slack error of the test's choosing, or lose their connection. Slack answers its errors with HTTP 200
 * and `{ok: false, error}` — its Web API uses no status but 200 and 429 — so that is the default;
 * `ratelimited` comes as 429 with `Retry-After`, and a gateway-style failure can ask for any status.
 */

export interface FaultSpec {
  /** The Web API method, e.g. `chat.postMessage`. */
  method: string;
  /** The Slack error code to answer (`not_in_channel`, `msg_blocks_too_long`, …). */
  error?: string;
  /** Drop the connection instead of answering (a network failure, not a Slack error). */
  drop?: boolean;
  /** How many calls fail (default 1). */
  times?: number;
  /** Only calls for this channel (its id, or a user id for a DM). */
  channel?: string;
  /** The HTTP status (default 200, or 429 for `ratelimited`). */
  status?: number;
  /** `Retry-After` in seconds for `ratelimited` (default 1). */
  retryAfter?: number;
}

export interface Fault extends Required<Pick<FaultSpec, 'method' | 'times'>> {
  id: number;
  error?: string;
  drop: boolean;
  channel?: string;
  status: number;
  retryAfter?: number;
  /** Calls still to fail. */
  remaining: number;
}

// Method names: `chat.postMessage`, and with digits in a part, `oauth.v2.access`.
const METHOD = /^[a-z]+(\.[a-zA-Z][a-zA-Z0-9]*)+$/;
const ERROR_CODE = /^[a-z][a-z0-9_]*$/;

/** Checks what a test or the admin endpoint asked for; every problem names its field and rule. */
export function parseFaultSpec(input: unknown): FaultSpec {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw new Error(
      'a fault must be an object: {method, error | drop, times?, channel?, status?, retryAfter?}',
    );
  const o = input as Record<string, unknown>;
  const known = new Set(['method', 'error', 'drop', 'times', 'channel', 'status', 'retryAfter']);
  for (const key of Object.keys(o)) if (!known.has(key)) throw new Error(`fault: unknown field "${key}"`);
  if (typeof o.method !== 'string' || !METHOD.test(o.method))
    throw new Error(
      `fault.method must be a Web API method name like "chat.postMessage", got ${JSON.stringify(o.method)}`,
    );
  const drop = o.drop === undefined ? false : o.drop;
  if (typeof drop !== 'boolean') throw new Error('fault.drop must be true or false');
  if (o.error !== undefined && (typeof o.error !== 'string' || !ERROR_CODE.test(o.error)))
    throw new Error(
      `fault.error must be a Slack error code like "not_in_channel", got ${JSON.stringify(o.error)}`,
    );
  if (drop === (o.error !== undefined)) throw new Error('fault: give exactly one of "error" or "drop: true"');
  const spec: FaultSpec = { method: o.method, drop };
  if (o.error !== undefined) spec.error = o.error as string;
  if (o.times !== undefined) {
    if (typeof o.times !== 'number' || !Number.isInteger(o.times) || o.times < 1 || o.times > 10_000)
      throw new Error(`fault.times must be a whole number from 1 to 10000, got ${JSON.stringify(o.times)}`);
    spec.times = o.times;
  }
  if (o.channel !== undefined) {
    if (typeof o.channel !== 'string' || o.channel === '')
      throw new Error('fault.channel must be a channel id (or a user id for a DM)');
    spec.channel = o.channel;
  }
  if (o.status !== undefined) {
    if (typeof o.status !== 'number' || !Number.isInteger(o.status) || o.status < 200 || o.status > 599)
      throw new Error(`fault.status must be an HTTP status from 200 to 599, got ${JSON.stringify(o.status)}`);
    if (drop) throw new Error('fault.status has no meaning with drop: true (nothing is answered)');
    spec.status = o.status;
  }
  if (o.retryAfter !== undefined) {
    if (typeof o.retryAfter !== 'number' || !Number.isInteger(o.retryAfter) || o.retryAfter < 0)
      throw new Error(
        `fault.retryAfter must be a whole number of seconds, got ${JSON.stringify(o.retryAfter)}`,
      );
    if (o.error !== 'ratelimited') throw new Error('fault.retryAfter goes with error: "ratelimited" only');
    spec.retryAfter = o.retryAfter;
  }
  return spec;
}

/** The faults waiting to happen, first added first used. */
export class Faults {
  readonly #list: Fault[] = [];
  #nextId = 1;

  add(input: FaultSpec): Fault {
    const spec = parseFaultSpec(input);
    const times = spec.times ?? 1;
    const fault: Fault = {
      id: this.#nextId++,
      method: spec.method,
      times,
      remaining: times,
      drop: spec.drop ?? false,
      status: spec.status ?? (spec.error === 'ratelimited' ? 429 : 200),
      ...(spec.error !== undefined ? { error: spec.error } : {}),
      ...(spec.channel !== undefined ? { channel: spec.channel } : {}),
      ...(spec.error === 'ratelimited' ? { retryAfter: spec.retryAfter ?? 1 } : {}),
    };
    this.#list.push(fault);
    return fault;
  }

  /** The fault this call meets, if any (counted as used). `channels` are the ids the call names. */
  take(method: string, channels: string[]): Fault | undefined {
    const fault = this.#list.find(
      (f) => f.method === method && (f.channel === undefined || channels.includes(f.channel)),
    );
    if (!fault) return undefined;
    fault.remaining -= 1;
    if (fault.remaining <= 0) this.#list.splice(this.#list.indexOf(fault), 1);
    return fault;
  }

  list(): Fault[] {
    return this.#list.map((f) => ({ ...f }));
  }

  clear(): void {
    this.#list.length = 0;
  }
}
