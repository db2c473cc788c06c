import { inspect } from 'node:util';
import pRetry from 'p-retry';
import { Agent, type Dispatcher, request } from 'undici';
import type { z } from 'zod';
import {
  AbortError,
  AgentSessionsError,
  ConnectionError,
  errorFromResponse,
  InvalidResponseError,
  TimeoutError,
} from './errors.js';
import { type Logger, redactHeaders, silentLogger } from './logger.js';
import { backoffMs, type RetryPolicy, retryVerdict, serverRequestedDelayMs } from './retry.js';
import { sleep } from './sleep.js';

export interface RequestOptions {
  /** Aborts this request (and its retries). */
  signal?: AbortSignal;
  /** Per attempt. Default: the client's `timeoutMs`. */
  timeoutMs?: number;
  /** Default: the client's `maxRetries`. */
  maxRetries?: number;
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
}

export interface TransportRequest {
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** Safe to repeat (a GET): decides what may be retried. */
  idempotent: boolean;
  /** Signup takes no key. */
  authenticated: boolean;
  options?: RequestOptions;
}

type RawHeaders = Record<string, string | string[] | undefined>;
interface RawResponse {
  status: number;
  headers: RawHeaders;
  body: unknown;
  path: string;
}

const BEFORE_SEND_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);
const MAX_ERROR_BODY_CHARS = 2_000;

function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function flattenHeaders(raw: RawHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
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

  /** Sends `req` (with retries) and validates the 2xx body against `schema`. */
  async request<T>(req: TransportRequest, schema: z.ZodType<T>): Promise<T> {
    const signal = combineSignals(this.#options.signal, req.options?.signal);
    const maxRetries = req.options?.maxRetries ?? this.#options.retry.maxRetries;
    const attempt = async (attemptNumber: number): Promise<T> => {
      if (signal?.aborted) throw new AbortError('request aborted', { cause: signal.reason });
      const response = await this.#once(req, signal, attemptNumber);
      const parsed = schema.safeParse(response.body);
      if (parsed.success) return parsed.data;
      const problems = parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`);
      throw new InvalidResponseError({
        ...response,
        headers: flattenHeaders(response.headers),
        method: req.method,
        message: `${req.method} ${req.path}: the service's answer does not match the contract (${problems.join('; ')})`,
      });
    };
    // The first attempt runs on its own: the common case pays nothing for the retry machinery.
    try {
      return await attempt(1);
    } catch (error) {
      if (maxRetries === 0 || !(await this.#retryAfter(error, 1, req, signal))) throw error;
    }
    return pRetry((n) => attempt(n + 1), {
      retries: maxRetries - 1,
      minTimeout: 0,
      maxTimeout: 0,
      randomize: false,
      shouldRetry: ({ error, attemptNumber }) => this.#retryAfter(error, attemptNumber + 1, req, signal),
    });
  }

  /** Decides whether a failed attempt is tried again, and if so sleeps (abortably) before saying yes. */
  async #retryAfter(
    error: unknown,
    attemptNumber: number,
    req: TransportRequest,
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

  async #once(req: TransportRequest, outer: AbortSignal | undefined, attempt: number): Promise<RawResponse> {
    let search = '';
    if (req.query) {
      const params = new URLSearchParams();
      for (const [k, v] of Object.entries(req.query)) if (v !== undefined) params.set(k, String(v));
      const text = params.toString();
      if (text !== '') search = `?${text}`;
    }
    const pathAndQuery = `${this.#basePath}${req.path.replace(/^\//, '')}${search}`;
    const url = `${this.#origin}${pathAndQuery}`;
    const base = req.authenticated ? this.#authenticatedHeaders : this.#anonymousHeaders;
    const headers = req.body === undefined ? base : { ...base, 'content-type': 'application/json' };
    const timeoutMs = req.options?.timeoutMs ?? this.#options.timeoutMs;
    const log = this.#options.logger;
    const started = log === silentLogger ? 0 : performance.now();
    try {
      return await this.#exchange(req, url, pathAndQuery, headers, outer, timeoutMs, attempt, started);
    } catch (error) {
      if (error instanceof AgentSessionsError) throw error;
      throw this.#transportError(error, outer, timeoutMs, req, pathAndQuery);
    }
  }

  async #exchange(
    req: TransportRequest,
    url: string,
    pathAndQuery: string,
    headers: Record<string, string>,
    signal: AbortSignal | undefined,
    timeoutMs: number,
    attempt: number,
    started: number,
  ): Promise<RawResponse> {
    const log = this.#options.logger;
    const response = await request(url, {
      method: req.method,
      headers,
      body: req.body === undefined ? undefined : JSON.stringify(req.body),
      dispatcher: this.#dispatcher,
      // undici's own timers: an AbortSignal per request would cost more than the rest of our overhead.
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      ...(signal ? { signal } : {}),
    });

    // Always read the body (even for errors): an unread body keeps its socket out of the pool.
    const text = await response.body.text();
    const status = response.statusCode;
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

    let body: unknown = text;
    let isJson = false;
    if (text !== '') {
      try {
        body = JSON.parse(text);
        isJson = true;
      } catch {
        body = text.length > MAX_ERROR_BODY_CHARS ? `${text.slice(0, MAX_ERROR_BODY_CHARS)}…` : text;
      }
    }
    if (status >= 200 && status < 300) {
      if (!isJson) {
        throw new InvalidResponseError({
          status,
          body,
          headers: flattenHeaders(response.headers),
          method: req.method,
          path: pathAndQuery,
          message: `${req.method} ${req.path}: the service answered ${status} with a body that is not JSON`,
        });
      }
      return { status, headers: response.headers, body, path: pathAndQuery };
    }
    const responseHeaders = flattenHeaders(response.headers);
    throw errorFromResponse({
      status,
      body,
      headers: responseHeaders,
      method: req.method,
      path: pathAndQuery,
      retryAfterMs: serverRequestedDelayMs(responseHeaders),
    });
  }

  #transportError(
    error: unknown,
    outer: AbortSignal | undefined,
    timeoutMs: number,
    req: TransportRequest,
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
