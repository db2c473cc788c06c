import type { FollowEvent, FollowEventOf, FollowEventType } from './events.js';

export type FollowEventHandler<E extends FollowEvent = FollowEvent> = (event: E) => void | Promise<void>;

/** Runs one handler's call with one event: where a caller sets what every call runs under (a workspace). */
export type AroundHandler = (event: FollowEvent, handle: () => Promise<void>) => Promise<void>;

/**
 * Who hears a follower's events: handlers by event type (or `*` for all), called one after another in
 * the order they subscribed, each awaited, so a batch's state is saved only after every handler is done.
 */
export class FollowEventHandlers {
  readonly #handlers = new Map<FollowEventType | '*', Set<FollowEventHandler<never>>>();

  constructor(private readonly around?: AroundHandler) {}

  /** Events delivered, by type. */
  readonly counts: Record<FollowEventType, number> = {
    message: 0,
    status: 0,
    update: 0,
    human_input_needed: 0,
    cost_limit: 0,
    finished: 0,
    error: 0,
    invalid_human_input: 0,
    human_input_unreadable: 0,
  };

  /** Subscribes to one kind of event; returns the unsubscribe function. */
  on<T extends FollowEventType>(type: T, handler: FollowEventHandler<FollowEventOf<T>>): () => void;
  on(type: '*', handler: FollowEventHandler): () => void;
  on(type: FollowEventType | '*', handler: FollowEventHandler<never>): () => void;
  on(type: FollowEventType | '*', handler: FollowEventHandler<never>): () => void {
    let set = this.#handlers.get(type);
    if (!set) {
      set = new Set();
      this.#handlers.set(type, set);
    }
    set.add(handler);
    return () => set.delete(handler);
  }

  /** Calls the handlers of each event in turn; the first that throws stops the batch. */
  async deliver(events: FollowEvent[]): Promise<void> {
    for (const event of events) {
      this.counts[event.type]++;
      for (const key of [event.type, '*'] as const) {
        const handlers = this.#handlers.get(key);
        if (!handlers) continue;
        for (const handler of handlers) {
          const handle = async () => {
            await (handler as FollowEventHandler)(event);
          };
          await (this.around ? this.around(event, handle) : handle());
        }
      }
    }
  }
}
