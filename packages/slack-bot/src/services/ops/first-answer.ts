import type { Logger } from '../../logger.js';
import type { Readiness } from './readiness.js';

/** The first retry's wait; each next one doubles, up to MAX_DELAY_MS. */
const FIRST_DELAY_MS = 1_000;
/** A Slack or service back after an outage is seen within this. */
const MAX_DELAY_MS = 15_000;
/** A failing attempt is logged at most this often: a long outage says so once a minute, not every try. */
const LOG_EVERY_MS = 60_000;

export interface FirstAnswerOptions<T> {
  /** Who is asked, as `/readyz` and the log name it: `slack`, `service`. */
  part: string;
  /** What is awaited, as `/readyz` says it meanwhile: `auth.test not answered yet`. */
  waitingFor: string;
  /** One attempt, no retries of its own. */
  ask: () => Promise<T>;
  readiness: Pick<Readiness, 'waitFor'>;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** Whether the replica is not ready until the answer comes (default true). */
  gates?: boolean;
  /** An answer that will not change by asking again (a refused token): the words `/readyz` says instead. */
  refusal?: (error: unknown) => string | undefined;
  /** Tests: the waits between attempts. */
  delays?: { firstMs: number; maxMs: number };
  now?: () => number;
}

export interface FirstAnswer<T> {
  /** Settles with the first answer; never rejects (a refusal leaves it pending, said in `/readyz`). */
  answer: Promise<T>;
  stop(): void;
}

/**
 * Asks in the background until the first answer, so no start step waits on Slack or the service: the
 * probes answer meanwhile and `/readyz` says what is awaited. The attempts back off to MAX_DELAY_MS; a
 * failure is logged when it first happens and then once a minute with the count of attempts, not at each.
 * The clients' own retries (Slack's WebClient: ten over half an hour) would hide the outage from both.
 */
export function untilFirstAnswer<T>(options: FirstAnswerOptions<T>): FirstAnswer<T> {
  const { part, waitingFor, ask, logger } = options;
  const now = options.now ?? Date.now;
  const delays = options.delays ?? { firstMs: FIRST_DELAY_MS, maxMs: MAX_DELAY_MS };
  const wait = options.readiness.waitFor(part, waitingFor, { gates: options.gates ?? true });
  const began = now();
  let attempts = 0;
  let loggedAt: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let answered: (value: T) => void = () => {};
  const answer = new Promise<T>((resolve) => {
    answered = resolve;
  });
  const failed = (error: unknown): boolean => {
    const refused = options.refusal?.(error);
    if (refused !== undefined) {
      wait.update(refused);
      logger.error({ err: error, part, attempts }, `${part} refused: ${refused}; not asked again`);
      return false;
    }
    if (loggedAt === undefined || now() - loggedAt >= LOG_EVERY_MS) {
      loggedAt = now();
      const waitedSeconds = Math.round((loggedAt - began) / 1000);
      logger.warn(
        { err: error, part, attempts, waitedSeconds },
        `${part}: ${waitingFor}; asking again in the background (logged once a minute)`,
      );
    }
    return true;
  };
  const attempt = () => {
    if (stopped) return;
    attempts += 1;
    ask().then(
      (value) => {
        wait.done();
        if (attempts > 1)
          logger.info(
            { part, attempts, waitedSeconds: Math.round((now() - began) / 1000) },
            `${part} answered`,
          );
        answered(value);
      },
      (error: unknown) => {
        if (stopped || !failed(error)) return;
        const delay = Math.min(delays.firstMs * 2 ** (attempts - 1), delays.maxMs);
        timer = setTimeout(attempt, delay);
        timer.unref();
      },
    );
  };
  attempt();
  return {
    answer,
    stop: () => {
      stopped = true;
      clearTimeout(timer);
      wait.done();
    },
  };
}
