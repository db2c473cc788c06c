import { inspect } from 'node:util';
import { Agent, type Dispatcher } from 'undici';
import { AbortError, AgentSessionsError, ConnectionError, ServiceError, TimeoutError } from './errors.js';
import { type Logger, redactHeaders, silentLogger } from './logger.js';
import { type ApiRequest, type ApiResponse, cutErrorText, pathWithQuery, responseError } from './request.js';
import { backoffMs, type RetryPolicy, retryVerdict } from './retry.js';
import { sleep } from './sleep.js';

export type { RequestOptions } from './request.js';

/**
 * Told of every attempt sent to the service: where a caller makes a span of it (OpenTelemetry or any
 * other) and hands the trace context to the service in headers (W3C `traceparent`). Core knows no
 * tracing library: the caller brings its own.
 */
export interface RequestTracer {
  start(attempt: { method: string; path: string; attempt: number }): {
    /** Headers added to the attempt, e.g. `traceparent`. */
    headers: Readonly<Record<string, string>>;
    /** The attempt's outcome: the status the service answered, or the error when none came. */
    end(outcome: { status?: number; error?: unknown }): void;
  };
}

export interface TransportOptions {
  baseUrl: string;
  apiKey: string;
  authHeader: 'bearer' | 'x-service-key';
  timeoutMs: number;
  retry: RetryPolicy;
  logger: Logger;
  signal: AbortSignal | undefined;
  dispatcher: Dispatcher | undefined;
  userAgent: string;
  tracer?: RequestTracer | undefined;
}

type RawHeaders = Record<string, string | string[] | undefined>;

const BEFORE_SEND_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);
const SLASH = 0x2f;

function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * The one request loop: URL, auth, JSON, timeout, abort, retries, errors and logging, written once.
 * Resources only describe endpoints on top of it.
 */
export class Transport {
  readonly #options: TransportOptions;
  readonly #apiKey: string;
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;
  readonly #origin: string;
  // Built once: most requests are bodiless GETs with the same headers.
  readonly #anonymousHeaders: Readonly<Record<string, string>>;
  readonly #authenticatedHeaders: Readonly<Record<string, string>>;
  /** The base URL's path, ending in '/' (a service may live under a prefix). */
  readonly #basePath: string;

  constructor(options: TransportOptions) {
    this.#apiKey = options.apiKey;
    this.#options = { ...options, apiKey: '[redacted]' };
    this.#ownsDispatcher = options.dispatcher === undefined;
    const plain = { accept: 'application/json', 'user-agent': options.userAgent };
    this.#anonymousHeaders = plain;
    this.#authenticatedHeaders =
      options.authHeader === 'x-service-key'
        ? { ...plain, 'x-service-key': options.apiKey }
        : { ...plain, authorization: `Bearer ${options.apiKey}` };
    const base = new URL(options.baseUrl);
    this.#origin = base.origin;
    this.#basePath = base.pathname.replace(/\/?$/, '/');
    // One pooled agent per client: keep-alive sockets reused across the many small requests of polling.
    this.#dispatcher = options.dispatcher ?? new Agent({ keepAliveTimeout: 10_000, connections: 32 });
  }

  get baseUrl(): string {
    return this.#options.baseUrl;
  }

  async close(): Promise<void> {
    if (this.#ownsDispatcher) await this.#dispatcher.close();
  }

  /**
   * Sends `req` with retries and returns the 2xx (body parsed as JSON, or the text when it isn't JSON:
   * what a 2xx means is the resource's to judge, never the transport's). Other statuses throw the typed
   * error of `errorFromResponse`. A `RequestFunction`, so the pure resources run on it.
   */
  readonly send = async (req: ApiRequest): Promise<ApiResponse> => {
    const signal = combineSignals(this.#options.signal, req.signal);
    const maxRetries = req.maxRetries ?? this.#options.retry.maxRetries;
    // A plain loop, not p-retry: every delay here is the server's Retry-After or our own capped backoff,
    // decided per attempt by whether the request is idempotent, and slept abortably. p-retry's own
    // schedule would be switched off (min/maxTimeout 0) and its abort handled beside it, leaving it only
    // the counting, which this loop does without a dependency (nor a closure per call: this is the hot path).
    for (let attemptNumber = 1; ; attemptNumber++) {
      try {
        if (signal?.aborted) throw new AbortError('request aborted', { cause: signal.reason });
        return await this.#once(req, signal, attemptNumber);
      } catch (error) {
        if (attemptNumber > maxRetries || !(await this.#retryAfter(error, attemptNumber, req, signal)))
          throw error;
      }
    }
  };

  /** Decides whether a failed attempt is tried again, and if so sleeps (abortably) before saying yes. */
  async #retryAfter(
    error: unknown,
    attemptNumber: number,
    req: ApiRequest,
    signal: AbortSignal | undefined,
  ): Promise<boolean> {
    if (!(error instanceof AgentSessionsError) || error instanceof AbortError) return false;
    const verdict = retryVerdict(error, req.idempotent);
    if (!verdict.retry) return false;
    const serverDelay = verdict.serverDelayMs;
    // A longer wait is not slept through silently: the caller gets the error with retryAfterMs and decides.
    if (serverDelay !== undefined && serverDelay > this.#options.retry.maxRetryAfterMs) return false;
    const delay = serverDelay ?? backoffMs(attemptNumber, this.#options.retry);
    this.#options.logger.debug(
      { method: req.method, path: req.path, attempt: attemptNumber, delayMs: delay, err: error.name },
      'retrying request',
    );
    await sleep(delay, signal);
    return true;
  }

  /** One attempt. */
  async #once(req: ApiRequest, signal: AbortSignal | undefined, attempt: number): Promise<ApiResponse> {
    const path = pathWithQuery(req);
    const pathAndQuery = `${this.#basePath}${path.charCodeAt(0) === SLASH ? path.slice(1) : path}`;
    const base = req.authenticated ? this.#authenticatedHeaders : this.#anonymousHeaders;
    const traced = this.#options.tracer?.start({ method: req.method, path: req.path, attempt });
    const withTrace = traced ? { ...base, ...traced.headers } : base;
    const headers = req.body === undefined ? withTrace : { ...withTrace, 'content-type': 'application/json' };
    try {
      const response = await this.#attempt(req, signal, attempt, pathAndQuery, headers);
      traced?.end({ status: response.status });
      return response;
    } catch (error) {
      traced?.end(error instanceof ServiceError ? { status: error.status, error } : { error });
      throw error;
    }
  }

  async #attempt(
    req: ApiRequest,
    signal: AbortSignal | undefined,
    attempt: number,
    pathAndQuery: string,
    headers: Readonly<Record<string, string>>,
  ): Promise<ApiResponse> {
    const timeoutMs = req.timeoutMs ?? this.#options.timeoutMs;
    const log = this.#options.logger;
    const started = log === silentLogger ? 0 : performance.now();
    let response: Dispatcher.ResponseData;
    try {
      // The dispatcher's own request, not undici's top-level `request(url, …)`: that one parses the URL
      // and copies the options on every call, and the origin here never changes. The path is already
      // what a URL parser would make of it (the base path came through `new URL`, ids are
      // percent-encoded, the query is URLSearchParams'), so what goes on the wire is the same.
      response = await this.#dispatcher.request({
        origin: this.#origin,
        path: pathAndQuery,
        method: req.method,
        headers,
        body: req.body === undefined ? undefined : JSON.stringify(req.body),
        // undici's own timers: an AbortSignal per request would cost more than the rest of our overhead.
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        signal,
      });
    } catch (error) {
      throw this.#transportError(error, signal, timeoutMs, req, pathAndQuery);
    }

    // Always read the body (even for errors): an unread body keeps its socket out of the pool.
    const status = response.statusCode;
    let text: string;
    try {
      text = await response.body.text();
    } catch (error) {
      // A 2xx to a POST means the service acted: a body cut off after it must not become an error the
      // caller would retry (a second session, a second answer). It comes back without a body.
      if (req.idempotent || status < 200 || status >= 300)
        throw this.#transportError(error, signal, timeoutMs, req, pathAndQuery);
      log.warn(
        { method: req.method, path: pathAndQuery, status, err: errorCode(error) ?? String(error) },
        'the service answered 2xx but its body was cut off; returned without a body',
      );
      return { status, headers: response.headers as RawHeaders, body: undefined };
    }
    if (log !== silentLogger) {
      log.debug(
        {
          method: req.method,
          path: pathAndQuery,
          status,
          attempt,
          ms: Math.round(performance.now() - started),
          requestHeaders: redactHeaders(headers),
        },
        'request',
      );
    }

    // A 2xx body goes up whole (JSON or not): the resource decides what it means.
    if (status >= 200 && status < 300) return { status, headers: response.headers as RawHeaders, body: text };
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      body = cutErrorText(text);
    }
    throw responseError(status, response.headers as RawHeaders, body, req.method, pathAndQuery);
  }

  #transportError(
    error: unknown,
    outer: AbortSignal | undefined,
    timeoutMs: number,
    req: ApiRequest,
    path: string,
  ): AgentSessionsError {
    if (outer?.aborted) return new AbortError(`${req.method} ${path} aborted`, { cause: outer.reason });
    const code = errorCode(error);
    if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
      return new TimeoutError(`${req.method} ${path} timed out after ${timeoutMs} ms`);
    }
    // Refused or unresolvable: the request never left, so even a POST may be sent again.
    const beforeSend = code !== undefined && BEFORE_SEND_CODES.has(code);
    const reason = error instanceof Error ? error.message : String(error);
    return new ConnectionError(`${req.method} ${path} failed: ${code ?? reason}`, {
      cause: error,
      beforeSend,
    });
  }

  /** Keeps the key out of console.log(client) and friends. */
  [inspect.custom](): string {
    return `Transport { baseUrl: '${this.#options.baseUrl}', authHeader: '${this.#options.authHeader}' }`;
  }

  toJSON(): Record<string, unknown> {
    return { baseUrl: this.#options.baseUrl, authHeader: this.#options.authHeader };
  }
}

function combineSignals(a: AbortSignal | undefined, b: AbortSignal | undefined): AbortSignal | undefined {
  if (a && b) return AbortSignal.any([a, b]);
  return a ?? b;
}
