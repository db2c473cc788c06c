/**
 * One call per key at a time: whoever asks for a key while its call runs gets that call's answer, and
 * the next ask after it settles calls again. A burst of checks of one person or one channel asks Slack
 * once instead of once each. Keys are the caller's (workspace-scoped where they name Slack ids).
 */
export class SharedCalls<T> {
  readonly #running = new Map<string, Promise<T>>();

  run(key: string, call: () => Promise<T>): Promise<T> {
    const running = this.#running.get(key);
    if (running) return running;
    const started = call().finally(() => this.#running.delete(key));
    this.#running.set(key, started);
    return started;
  }
}
