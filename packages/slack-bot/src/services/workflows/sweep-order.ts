/**
 * The order in which a sweep looks at the open executions: round-robin over the workspaces, so no
 * workspace's backlog of completions (each a Tier 3 call, paced in its workspace's own queue) keeps
 * another's from being sent. Each workspace's executions are looked at one at a time, in their order;
 * at most `concurrency` looks run at once overall; a workspace stops for this sweep once `cap` of its
 * looks reached Slack, so a sweep stays short and a completion that becomes due meanwhile waits at most
 * one such sweep. What is left is looked at again by the next sweep (the executions are still open).
 */
export interface SweepOrder {
  /** Looks running at once, across every workspace. */
  concurrency: number;
  /** Looks that reached Slack (a completion sent) per workspace in one sweep. */
  cap: number;
}

interface Lane<T> {
  items: T[];
  next: number;
  spent: number;
}

/**
 * Runs `look` over every lane's items, round-robin: a worker takes the next item of the lane at the head
 * of the rotation, and the lane goes back to the rotation's end when that look is over (so a lane never
 * has two looks at once). `look` answers whether it reached Slack (what the cap counts).
 */
export async function roundRobin<T>(
  lanes: T[][],
  order: SweepOrder,
  look: (item: T) => Promise<boolean>,
): Promise<void> {
  const rotation: Lane<T>[] = lanes
    .filter((l) => l.length > 0)
    .map((items) => ({ items, next: 0, spent: 0 }));
  const worker = async () => {
    // A worker with nothing in the rotation stops: every lane left is held by a worker still running.
    for (let lane = rotation.shift(); lane; lane = rotation.shift()) {
      const item = lane.items[lane.next++] as T;
      if (await look(item)) lane.spent++;
      if (lane.next < lane.items.length && lane.spent < order.cap) rotation.push(lane);
    }
  };
  const workers = Math.max(1, Math.min(order.concurrency, rotation.length));
  await Promise.all(Array.from({ length: workers }, worker));
}

/** Items grouped by `keyOf`, each group in its first order; groups in the order their keys first appear. */
export function lanesOf<T>(items: Iterable<T>, keyOf: (item: T) => string): T[][] {
  const lanes = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const lane = lanes.get(key);
    if (lane) lane.push(item);
    else lanes.set(key, [item]);
  }
  return [...lanes.values()];
}
