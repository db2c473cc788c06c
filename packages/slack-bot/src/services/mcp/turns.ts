/**
 * At most `perTurn` callers let through per turn of the event loop; the others wait for later turns, in
 * order. A burst of MCP requests (a hundred hosts opening waits together) then runs a few at a time, with
 * the loop's I/O in between (a Slack request's ack), instead of each request's parsing, token check,
 * server and schema work back to back in one turn: on a loaded machine, a hundred of them held the loop
 * for most of a second. A caller alone passes at once (no turn waited).
 */
export class TurnPacer {
  #passedThisTurn = 0;
  readonly #waiting: Array<() => void> = [];
  #turnScheduled = false;

  constructor(private readonly perTurn: number) {}

  /** Undefined when the caller may go on now; else a promise resolved on its turn. */
  turn(): Promise<void> | undefined {
    if (this.#waiting.length === 0 && this.#passedThisTurn < this.perTurn) {
      this.#passedThisTurn += 1;
      this.#nextTurn();
      return undefined;
    }
    return new Promise<void>((resolve) => {
      this.#waiting.push(resolve);
      this.#nextTurn();
    });
  }

  /** Callers waiting for a turn (for tests and metrics). */
  get waiting(): number {
    return this.#waiting.length;
  }

  #nextTurn(): void {
    if (this.#turnScheduled) return;
    this.#turnScheduled = true;
    // An immediate set while immediates run waits for the loop's next turn: the poll phase comes first.
    setImmediate(() => {
      this.#turnScheduled = false;
      const now = this.#waiting.splice(0, this.perTurn);
      this.#passedThisTurn = now.length;
      for (const go of now) go();
      if (this.#waiting.length > 0 || now.length > 0) this.#nextTurn();
    });
  }
}
