import { inspect } from 'node:util';
import type { Dispatcher } from 'undici';
import { type Logger, redactingLogger, silentLogger } from './http/logger.js';
import { defaultRetryPolicy } from './http/retry.js';
import { sleep } from './http/sleep.js';
import { type RequestTracer, Transport } from './http/transport.js';
import { Auth } from './resources/auth.js';
import { Sessions } from './resources/sessions.js';
import type { SessionStatus } from './schemas/responses/index.js';
import { type WaitOptions, waitForCompletion } from './wait.js';

export interface ClientOptions {
  /** The service's base address, e.g. `https://agents.example.com`. */
  baseUrl: string;
  apiKey: string;
  /** `bearer` (default) sends `Authorization: Bearer <key>`; `x-service-key` sends `X-Service-Key`. */
  authHeader?: 'bearer' | 'x-service-key';
  /** Per attempt. Default 60 s. */
  timeoutMs?: number;
  /** Retries after the first attempt, where retrying is safe. Default 2. */
  maxRetries?: number;
  /** A server-requested wait longer than this is not slept: a RateLimitError with retryAfterMs. Default 60 s. */
  maxRetryAfterMs?: number;
  /** pino or anything with its debug/info/warn/error; the key is redacted from whatever it is given. */
  logger?: Logger;
  /** Aborts every request of this client. */
  signal?: AbortSignal;
  /** An undici dispatcher to use instead of the client's own pooled Agent (proxies, tests). */
  dispatcher?: Dispatcher;
  /** Told of every attempt: a span per request, its trace context (`traceparent`) sent with it. */
  tracer?: RequestTracer;
}

const VERSION = '0.1.0';

function optionError(name: string, rule: string): TypeError {
  return new TypeError(`AgentSessionsClient: option \`${name}\` ${rule}`);
}

function checkOptions(options: ClientOptions): void {
  if (!options || typeof options !== 'object') throw optionError('options', 'must be an object');
  if (typeof options.baseUrl !== 'string' || options.baseUrl === '')
    throw optionError('baseUrl', 'is required');
  let url: URL;
  try {
    url = new URL(options.baseUrl);
  } catch {
    throw optionError('baseUrl', `must be an absolute http(s) URL, got "${options.baseUrl}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw optionError('baseUrl', `must use http or https, got "${url.protocol}"`);
  }
  if (typeof options.apiKey !== 'string' || options.apiKey.trim() === '') {
    throw optionError('apiKey', 'is required and must be a non-empty string');
  }
  if (
    options.authHeader !== undefined &&
    options.authHeader !== 'bearer' &&
    options.authHeader !== 'x-service-key'
  ) {
    throw optionError('authHeader', `must be 'bearer' or 'x-service-key'`);
  }
  for (const name of ['timeoutMs', 'maxRetryAfterMs'] as const) {
    const value = options[name];
    if (value !== undefined && !(Number.isFinite(value) && value > 0)) {
      throw optionError(name, `must be a positive number, got ${value}`);
    }
  }
  const retries = options.maxRetries;
  if (retries !== undefined && !(Number.isInteger(retries) && retries >= 0)) {
    throw optionError('maxRetries', `must be a whole number >= 0, got ${retries}`);
  }
}

/** The one client of the Agent Session Service contract. */
export class AgentSessionsClient {
  readonly auth: Auth;
  readonly sessions: Sessions;
  readonly #transport: Transport;
  readonly #logger: Logger;

  constructor(options: ClientOptions) {
    checkOptions(options);
    this.#logger = redactingLogger(options.logger ?? silentLogger, options.apiKey);
    this.#transport = new Transport({
      baseUrl: options.baseUrl,
      apiKey: options.apiKey,
      authHeader: options.authHeader ?? 'bearer',
      timeoutMs: options.timeoutMs ?? 60_000,
      retry: {
        ...defaultRetryPolicy,
        ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
        ...(options.maxRetryAfterMs === undefined ? {} : { maxRetryAfterMs: options.maxRetryAfterMs }),
      },
      logger: this.#logger,
      signal: options.signal,
      dispatcher: options.dispatcher,
      userAgent: `agent-sessions-core/${VERSION} node/${process.versions.node}`,
      tracer: options.tracer,
    });
    this.auth = new Auth(this.#transport.send);
    this.sessions = new Sessions({ request: this.#transport.send, sleep, logger: this.#logger });
  }

  get baseUrl(): string {
    return this.#transport.baseUrl;
  }

  /** Polls until the session finishes (or needs a person) and returns its last status. */
  waitForCompletion(sessionId: string, options?: WaitOptions): Promise<SessionStatus> {
    return waitForCompletion(this.sessions, sessionId, options);
  }

  /** Closes the pooled connections (not needed to exit; useful in tests and short scripts). */
  close(): Promise<void> {
    return this.#transport.close();
  }

  [inspect.custom](): string {
    return `AgentSessionsClient { baseUrl: '${this.baseUrl}' }`;
  }

  toJSON(): Record<string, unknown> {
    return { baseUrl: this.baseUrl };
  }
}
