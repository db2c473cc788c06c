import type { EventEmitter } from 'node:events';

/**
 * Resolves with the first truthy value of `predicate`, checked now and again on every `change` the emitter
 * reports (never on a timer: nothing is read between changes); rejects after `timeoutMs` naming `what`.
 */
export function waitForChange<T>(
  emitter: EventEmitter,
  predicate: () => T | undefined | false,
  { timeoutMs, what }: { timeoutMs: number; what: string },
): Promise<T> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const value = predicate();
      if (value) {
        cleanup();
        resolve(value);
      }
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`sandbox: ${what} not reached within ${timeoutMs} ms`));
    }, timeoutMs);
    const cleanup = () => {
      clearTimeout(timer);
      emitter.off('change', check);
    };
    emitter.on('change', check);
    check();
  });
}
