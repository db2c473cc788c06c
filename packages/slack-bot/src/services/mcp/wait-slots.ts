import { scopedKey } from '../../workspace.js';

/** How many calls that hold their request open (`wait_for_session`, `subscriptions/listen`) one replica takes at once. */
export interface WaitLimits {
  /** Per person (their workspace and user id, across all their tokens). */
  perPerson: number;
  /** Per workspace (all its people together). */
  perWorkspace: number;
}

/** What hosts are allowed by default: a few agents per person; a workspace can't hold the bot's sockets. */
export const WAIT_LIMITS: WaitLimits = { perPerson: 5, perWorkspace: 100 };

export type WaitSlot = { taken: true; release: () => void } | { taken: false; message: string };

/**
 * The open `wait_for_session` calls (and `subscriptions/listen` streams), counted per person and per
 * workspace, in this replica's memory: each holds a request open (a wait also reads the store while
 * another replica follows its session), so their number is bounded where a rate can't bound it. A call past a limit is refused at once, naming the limit.
 */
export class WaitSlots {
  readonly #byPerson = new Map<string, number>();
  readonly #byWorkspace = new Map<string, number>();

  constructor(private readonly limits: WaitLimits = WAIT_LIMITS) {}

  /** Takes `count` slots for the person (one per wait call in the request), or none. */
  take(workspace: string, userId: string, count = 1): WaitSlot {
    const person = scopedKey(workspace, userId);
    const mine = this.#byPerson.get(person) ?? 0;
    const theirs = this.#byWorkspace.get(workspace) ?? 0;
    if (mine + count > this.limits.perPerson)
      return {
        taken: false,
        message: `You have ${mine} calls open that wait (wait_for_session, subscriptions/listen), the most one person may (${this.limits.perPerson}): call again once one returns`,
      };
    if (theirs + count > this.limits.perWorkspace)
      return {
        taken: false,
        message: `This workspace has ${theirs} calls open that wait (wait_for_session, subscriptions/listen), the most one workspace may (${this.limits.perWorkspace}): call again once one returns`,
      };
    add(this.#byPerson, person, count);
    add(this.#byWorkspace, workspace, count);
    let released = false;
    return {
      taken: true,
      release: () => {
        if (released) return;
        released = true;
        add(this.#byPerson, person, -count);
        add(this.#byWorkspace, workspace, -count);
      },
    };
  }
}

/** Counts kept only while above zero, so the maps hold only people with a call open. */
function add(counts: Map<string, number>, key: string, by: number): void {
  const next = (counts.get(key) ?? 0) + by;
  if (next > 0) counts.set(key, next);
  else counts.delete(key);
}
