import { AbortError } from './errors.js';

// Node fires a longer timer after 1 ms instead of never.
const MAX_DELAY_MS = 2 ** 31 - 1;

/** Resolves after `ms`; rejects with `AbortError` as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new AbortError('aborted', { cause: signal.reason }));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(new AbortError('aborted', { cause: signal?.reason }));
    };
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.min(Math.max(0, ms), MAX_DELAY_MS),
    );
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
