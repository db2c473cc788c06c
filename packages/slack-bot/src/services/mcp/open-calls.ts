import type { ServerResponse } from 'node:http';
import { scopedKey } from '../../workspace.js';
import { fieldOf, messagesOf } from './json-rpc-body.js';
import type { McpCaller } from './tokens.js';

/** A JSON-RPC request id, as hosts send them. */
export type RequestId = string | number;

/**
 * The calls this replica holds open (`wait_for_session`, `subscriptions/listen`), by who made them and
 * their JSON-RPC id, so that they end when their host gives up on them. A 2025-era host cancels a call
 * with `notifications/cancelled` in a POST of its own and leaves the call's request open; the SDK's
 * stateless server, a fresh one per request, can't match the one to the other, so it is matched here:
 * the notification's caller (workspace, person and token: nobody ends another's calls) and the id it
 * names. A 2026-era host cancels by closing the call's request, seen here as its connection closing.
 * Either way the call's slot is freed at once and its signal aborted (the wait returns without reading
 * anything more). Two hosts sharing one token may use the same id at once: a cancel by one then ends
 * the other's call too, which returns early as if its timeout had come (it may call again).
 */
export class OpenCalls {
  readonly #byKey = new Map<string, Set<() => void>>();

  /**
   * Holds one request's calls (`ids`, the request's held-open messages): the signal is aborted, and
   * `release` called, when the host cancels one of them or the connection closes before the answer is
   * written; once the answer is written, `release` is called and nothing is held.
   */
  hold(caller: McpCaller, ids: RequestId[], res: ServerResponse, release: () => void): AbortSignal {
    const gone = new AbortController();
    const keys = ids.map((id) => keyOf(caller, id));
    const end = () => {
      for (const key of keys) this.#drop(key, cancel);
      release();
    };
    const cancel = () => {
      end();
      gone.abort();
    };
    for (const key of keys) {
      const open = this.#byKey.get(key) ?? new Set();
      open.add(cancel);
      this.#byKey.set(key, open);
    }
    res.once('finish', end);
    res.once('close', cancel);
    return gone.signal;
  }

  /** The caller's `notifications/cancelled` for `ids`: their calls open here end. How many did. */
  cancel(caller: McpCaller, ids: RequestId[]): number {
    let ended = 0;
    for (const id of ids)
      for (const cancel of [...(this.#byKey.get(keyOf(caller, id)) ?? [])]) {
        cancel();
        ended += 1;
      }
    return ended;
  }

  /** Calls held now (for tests and metrics). */
  get size(): number {
    let n = 0;
    for (const open of this.#byKey.values()) n += open.size;
    return n;
  }

  #drop(key: string, cancel: () => void): void {
    const open = this.#byKey.get(key);
    open?.delete(cancel);
    if (open?.size === 0) this.#byKey.delete(key);
  }
}

/** The person and token that made a call, and its id: a number and a string of the same digits differ. */
const keyOf = (caller: McpCaller, id: RequestId): string =>
  `${scopedKey(caller.workspace.key, caller.userId)}\u0000${caller.tokenId}\u0000${JSON.stringify(id)}`;

const isRequestId = (id: unknown): id is RequestId => typeof id === 'string' || typeof id === 'number';

/**
 * The calls in the body that hold their request open: `wait_for_session` (until the session moves), and
 * `subscriptions/listen` (a stream the SDK keeps open for change notifications). Their ids; a call
 * without one (a malformed request the SDK refuses) counts all the same, under no id.
 */
export function heldOpenCalls(body: unknown): Array<RequestId | undefined> {
  return messagesOf(body)
    .filter((m) => {
      const method = fieldOf(m, 'method');
      if (method === 'subscriptions/listen') return true;
      return method === 'tools/call' && fieldOf(fieldOf(m, 'params'), 'name') === 'wait_for_session';
    })
    .map((m) => {
      const id = fieldOf(m, 'id');
      return isRequestId(id) ? id : undefined;
    });
}

/** The request ids a body's `notifications/cancelled` messages name. */
export function cancelledCalls(body: unknown): RequestId[] {
  return messagesOf(body)
    .filter((m) => fieldOf(m, 'method') === 'notifications/cancelled')
    .map((m) => fieldOf(fieldOf(m, 'params'), 'requestId'))
    .filter(isRequestId);
}
