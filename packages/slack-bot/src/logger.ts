import { type Logger as BoltLogger, LogLevel } from '@slack/bolt';
import { type Logger, pino } from 'pino';
import { SecretScrubber } from './secret-scrubber.js';

export type { Logger };

/**
 * The bot's logger: JSON lines (pino). Secrets are scrubbed from every line as written, whatever logged
 * them (our code, Bolt, the WebClient): a token can't leak through a field nobody thought to redact.
 * `secrets` are the settings'; `scrubber` also knows those decrypted since (secret-scrubber.ts).
 */
export function createLogger(options: {
  secrets: Array<string | undefined>;
  scrubber?: SecretScrubber;
  level?: string;
  destination?: NodeJS.WritableStream;
}): Logger {
  const scrubber = options.scrubber ?? new SecretScrubber();
  scrubber.rememberConfigured(options.secrets);
  const scrub = (line: string) => scrubber.scrub(line);
  return pino(
    {
      level: options.level ?? 'info',
      base: { service: 'agent-sessions-slack-bot' },
      redact: {
        paths: ['token', '*.token', 'headers.authorization', '*.headers.authorization', 'apiKey', '*.apiKey'],
        censor: '[redacted]',
      },
      hooks: { streamWrite: scrub },
    },
    options.destination ?? process.stdout,
  );
}

const LEVELS: Record<LogLevel, string> = {
  [LogLevel.DEBUG]: 'debug',
  [LogLevel.INFO]: 'info',
  [LogLevel.WARN]: 'warn',
  [LogLevel.ERROR]: 'error',
};

/** The WebClient's line at each failed attempt of a call it retries (ten times over half an hour). */
const ATTEMPT_FAILED = 'http request failed';
/** How often that line is let through: an outage is said once a minute, with the attempts in between. */
const ATTEMPT_LOG_EVERY_MS = 60_000;

/**
 * Bolt's logger interface over pino, so Bolt's and the WebClient's lines are scrubbed too. The WebClient's
 * line for each failed attempt is let through once a minute, counting those held back (`repeated`).
 */
export function boltLogger(logger: Logger, now: () => number = Date.now): BoltLogger {
  const child = logger.child({ component: 'bolt' });
  const text = (parts: unknown[]) =>
    parts.map((p) => (typeof p === 'string' ? p : JSON.stringify(p))).join(' ');
  let attemptLoggedAt: number | undefined;
  let heldBack = 0;
  const warn = (line: string) => {
    if (!line.startsWith(ATTEMPT_FAILED)) return child.warn(line);
    if (attemptLoggedAt !== undefined && now() - attemptLoggedAt < ATTEMPT_LOG_EVERY_MS) {
      heldBack += 1;
      return;
    }
    attemptLoggedAt = now();
    child.warn(heldBack > 0 ? { repeated: heldBack } : {}, `${line} (said at most once a minute)`);
    heldBack = 0;
  };
  return {
    debug: (...msg) => child.debug(text(msg)),
    info: (...msg) => child.info(text(msg)),
    warn: (...msg) => warn(text(msg)),
    error: (...msg) => child.error(text(msg)),
    setLevel: (level) => {
      child.level = LEVELS[level] ?? 'info';
    },
    getLevel: () =>
      (Object.entries(LEVELS).find(([, v]) => v === child.level)?.[0] as LogLevel | undefined) ??
      LogLevel.INFO,
    setName: () => {},
  };
}
