/**
 * Sessions ordered by when they are next due. A binary min-heap with lazy removal: rescheduling pushes a
 * new entry and bumps the session's generation, so stale entries are skipped when they surface. Keeps
 * scheduling O(log n) with thousands of followed sessions.
 */
interface Entry {
  sessionId: string;
  dueAt: number;
  generation: number;
}

export class DueQueue {
  #heap: Entry[] = [];
  #generation = new Map<string, number>();

  get size(): number {
    return this.#generation.size;
  }

  has(sessionId: string): boolean {
    return this.#generation.has(sessionId);
  }

  /** (Re)schedules a session; an earlier schedule for it is forgotten. */
  schedule(sessionId: string, dueAt: number): void {
    const generation = (this.#generation.get(sessionId) ?? 0) + 1;
    this.#generation.set(sessionId, generation);
    this.#push({ sessionId, dueAt, generation });
  }

  remove(sessionId: string): void {
    this.#generation.delete(sessionId);
  }

  /** The earliest due session, without taking it. */
  peek(): { sessionId: string; dueAt: number } | undefined {
    this.#dropStale();
    const top = this.#heap[0];
    return top ? { sessionId: top.sessionId, dueAt: top.dueAt } : undefined;
  }

  /** Takes the earliest due session out of the queue. */
  pop(): { sessionId: string; dueAt: number } | undefined {
    const top = this.peek();
    if (!top) return undefined;
    this.#popTop();
    this.#generation.delete(top.sessionId);
    return top;
  }

  #dropStale(): void {
    for (;;) {
      const top = this.#heap[0];
      if (!top || this.#generation.get(top.sessionId) === top.generation) return;
      this.#popTop();
    }
  }

  #push(entry: Entry): void {
    const heap = this.#heap;
    heap.push(entry);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.#less(heap[parent] as Entry, entry)) break;
      heap[i] = heap[parent] as Entry;
      i = parent;
    }
    heap[i] = entry;
  }

  #popTop(): void {
    const heap = this.#heap;
    const last = heap.pop();
    if (!last || heap.length === 0) return;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child =
        right < heap.length && this.#less(heap[right] as Entry, heap[left] as Entry) ? right : left;
      if (this.#less(last, heap[child] as Entry)) break;
      heap[i] = heap[child] as Entry;
      i = child;
    }
    heap[i] = last;
  }

  #less(a: Entry, b: Entry): boolean {
    return a.dueAt < b.dueAt || (a.dueAt === b.dueAt && a.generation < b.generation);
  }
}
