import { randomBytes } from 'node:crypto';
import type { Account, Session } from './model.js';

export type EventType = 'message' | 'status' | 'human_input_needed' | 'finished';

export interface EmulatorEvent {
  seq: number;
  /** Wall-clock epoch ms (what a benchmark compares its own receive times against). */
  at: number;
  /** The emulator's virtual time. */
  virtualAt: number;
  sessionId: string;
  type: EventType;
  roundId?: string;
  position?: number;
  status?: string;
  inputId?: string;
}

export interface SignupUser {
  uid: string;
  email: string;
  displayName: string | null;
  passwordHash: string;
}

const MAX_EVENTS = 2_000_000;
/** W3C trace context headers kept (the latest), for a caller's tests of its traces. */
const MAX_TRACEPARENTS = 2_000;

/** Everything the emulator keeps, in memory. */
export class Store {
  readonly accountsByKey = new Map<string, Account>();
  readonly sessions = new Map<string, Session>();
  readonly users = new Map<string, SignupUser>();
  readonly events: EmulatorEvent[] = [];
  #seq = 0;
  readonly requestCounts = new Map<string, number>();
  readonly keyCounts = new Map<number, number>();
  /** The `traceparent` header of the latest requests that carried one, with their route. */
  readonly traceparents: Array<{ route: string; traceparent: string }> = [];
  /** Keys made for signed-up accounts (POST /_emulator/keys): gone at reset, unlike configured ones. */
  readonly #mintedKeys = new Set<string>();
  #nextKeyIndex = 0;

  constructor(apiKeys: string[], keysWithoutIntegration: string[]) {
    let index = 0;
    for (const key of apiKeys) {
      this.accountsByKey.set(key, { accountId: `acct_${index}`, keyIndex: index, hasIntegration: true });
      index++;
    }
    for (const key of keysWithoutIntegration) {
      this.accountsByKey.set(key, { accountId: `acct_${index}`, keyIndex: index, hasIntegration: false });
      index++;
    }
    this.#nextKeyIndex = index;
  }

  /**
   * A new key for a signed-up account, as the service's app makes one: the account (its uid) is its own
   * tenant, whichever of its keys is used. Returns the key and its index (as /_emulator/stats counts).
   */
  mintKey(accountId: string, hasIntegration: boolean): { key: string; keyIndex: number } {
    const key = `emu_${randomBytes(24).toString('hex')}`;
    const keyIndex = this.#nextKeyIndex++;
    this.accountsByKey.set(key, { accountId, keyIndex, hasIntegration });
    this.#mintedKeys.add(key);
    return { key, keyIndex };
  }

  /** Revokes a key made for a signed-up account; false for one it didn't make (configured keys stay). */
  revokeKey(key: string): boolean {
    if (!this.#mintedKeys.delete(key)) return false;
    return this.accountsByKey.delete(key);
  }

  record(event: Omit<EmulatorEvent, 'seq' | 'at'>): void {
    if (this.events.length >= MAX_EVENTS) this.events.splice(0, this.events.length / 2);
    this.events.push({ seq: ++this.#seq, at: Date.now(), ...event });
  }

  recordTraceparent(route: string, traceparent: string): void {
    if (this.traceparents.length >= MAX_TRACEPARENTS) this.traceparents.splice(0, MAX_TRACEPARENTS / 2);
    this.traceparents.push({ route, traceparent });
  }

  countRequest(route: string, keyIndex: number | undefined): void {
    this.requestCounts.set(route, (this.requestCounts.get(route) ?? 0) + 1);
    if (keyIndex !== undefined) this.keyCounts.set(keyIndex, (this.keyCounts.get(keyIndex) ?? 0) + 1);
  }

  reset(): void {
    this.sessions.clear();
    this.users.clear();
    for (const key of this.#mintedKeys) this.accountsByKey.delete(key);
    this.#mintedKeys.clear();
    this.events.length = 0;
    this.requestCounts.clear();
    this.keyCounts.clear();
    this.traceparents.length = 0;
  }
}

export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(9).toString('base64url')}`;
}
