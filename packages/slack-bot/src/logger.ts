import { type Logger as BoltLogger, LogLevel } from '@slack/bolt';
import { type Logger, pino } from 'pino';

export type { Logger };

/**
 * The bot's logger: JSON lines (pino). Secrets are scrubbed from every line as written, whatever logged
 * them (our code, Bolt, the WebClient): a token can't leak through a field nobody thought to redact.
 */
export function createLogger(options: {
  secrets: Array<string | undefined>;
  level?: string;
  destination?: NodeJS.WritableStream;
}): Logger {
  const secrets = options.secrets.filter((s): s is string => typeof s === 'string' && s.length >= 8);
  const scrub = (line: string) => {
    let out = line;
    for (const secret of secrets) out = out.split(secret).join('[redacted]');
    return out;
  };
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

/** Bolt's logger interface over pino, so Bolt's and the WebClient's lines are scrubbed too. */
export function boltLogger(logger: Logger): BoltLogger {
  const child = logger.child({ component: 'bolt' });
  const text = (parts: unknown[]) =>
    parts.map((p) => (typeof p === 'string' ? p : JSON.stringify(p))).join(' ');
  return {
    debug: (...msg) => child.debug(text(msg)),
    info: (...msg) => child.info(text(msg)),
    warn: (...msg) => child.warn(text(msg)),
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
