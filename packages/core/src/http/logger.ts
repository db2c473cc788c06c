/** The pino-compatible subset the client logs through: pass a pino logger, or anything shaped like it. */
export interface Logger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
};

const SECRET_HEADERS = new Set([
  'authorization',
  'x-service-key',
  'cookie',
  'set-cookie',
  'proxy-authorization',
]);

/** Headers as they may be logged: secrets replaced, whatever logger is behind. */
export function redactHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    out[name] = SECRET_HEADERS.has(name.toLowerCase()) ? '[redacted]' : value;
  }
  return out;
}

/**
 * Wraps a logger so that no object or message it receives can carry the key, even one a caller put
 * there by mistake (a header dump, an error whose message quoted it).
 */
export function redactingLogger(inner: Logger, secret: string): Logger {
  // Nothing to redact from a logger that writes nothing; keeping it lets callers skip building log lines.
  if (secret.length === 0 || inner === silentLogger) return inner;
  const scrub = (value: unknown, depth = 0): unknown => {
    if (typeof value === 'string') return value.split(secret).join('[redacted]');
    if (depth > 4 || value === null || typeof value !== 'object') return value;
    if (value instanceof Error) {
      return {
        name: value.name,
        message: scrub(value.message, depth + 1),
        stack: scrub(value.stack, depth + 1),
      };
    }
    if (Array.isArray(value)) return value.map((v) => scrub(v, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = scrub(v, depth + 1);
    return out;
  };
  const wrap =
    (level: keyof Logger) =>
    (obj: object, msg?: string): void =>
      inner[level](scrub(obj) as object, msg === undefined ? undefined : (scrub(msg) as string));
  return { debug: wrap('debug'), info: wrap('info'), warn: wrap('warn'), error: wrap('error') };
}
