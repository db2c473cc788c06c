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
import { type Logger, redactHeaders } from './logger.js';
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

function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
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

  constructor(options: TransportOptions) {
    this.#apiKey = options.apiKey;
    this.#options = { ...options, apiKey: '[redacted]' };
    this.#ownsDispatcher = options.dispatcher === undefined;
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
    const policy = this.#options.retry;
    return pRetry(
      async (attempt) => {
        if (signal?.aborted) throw new AbortError('request aborted', { cause: signal.reason });
        const response = await this.#once(req, signal, attempt);
        const parsed = schema.safeParse(response.body);
        if (parsed.success) return parsed.data;
        const problems = parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`);
        throw new InvalidResponseError({
          ...response,
          method: req.method,
          message: `${req.method} ${req.path}: the service's answer does not match the contract (${problems.join('; ')})`,
        });
      },
      {
        retries: maxRetries,
        minTimeout: 0,
        maxTimeout: 0,
        randomize: false,
        shouldRetry: async ({ error, attemptNumber }) => {
          if (!(error instanceof AgentSessionsError) || error instanceof AbortError) return false;
          const verdict = retryVerdict(error, req.idempotent);
          if (!verdict.retry) return false;
          const serverDelay = verdict.serverDelayMs;
          if (serverDelay !== undefined && serverDelay > policy.maxRetryAfterMs) {
            // Not slept through silently: the caller gets the error with retryAfterMs and decides.
            return false;
          }
          const delay = serverDelay ?? backoffMs(attemptNumber, policy);
          this.#options.logger.debug(
            { method: req.method, path: req.path, attempt: attemptNumber, delayMs: delay, err: error.name },
            'retrying request',
          );
          await sleep(delay, signal);
          return true;
        },
      },
    );
  }

  async #once(
    req: TransportRequest,
    outer: AbortSignal | undefined,
    attempt: number,
  ): Promise<{ status: number; headers: Record<string, string>; body: unknown; path: string }> {
    const url = new URL(req.path.replace(/^\//, ''), `${this.#options.baseUrl.replace(/\/?$/, '/')}`);
    for (const [k, v] of Object.entries(req.query ?? {}))
      if (v !== undefined) url.searchParams.set(k, String(v));
    const pathAndQuery = `${url.pathname}${url.search}`;
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': this.#options.userAgent,
    };
    if (req.body !== undefined) headers['content-type'] = 'application/json';
    if (req.authenticated) {
      if (this.#options.authHeader === 'x-service-key') headers['x-service-key'] = this.#apiKey;
      else headers.authorization = `Bearer ${this.#apiKey}`;
    }
    const timeoutMs = req.options?.timeoutMs ?? this.#options.timeoutMs;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = outer ? AbortSignal.any([outer, timeout]) : timeout;
    const started = performance.now();
    const log = this.#options.logger;

    let response: Dispatcher.ResponseData;
    try {
      response = await request(url, {
        method: req.method,
        headers,
        body: req.body === undefined ? undefined : JSON.stringify(req.body),
        dispatcher: this.#dispatcher,
        signal,
      });
    } catch (error) {
      throw this.#transportError(error, outer, timeout, timeoutMs, req, pathAndQuery);
    }

    let text: string;
    try {
      // Always read the body (even for errors): an unread body keeps its socket out of the pool.
      text = await response.body.text();
    } catch (error) {
      throw this.#transportError(error, outer, timeout, timeoutMs, req, pathAndQuery, true);
    }
    const status = response.statusCode;
    const responseHeaders = flattenHeaders(response.headers);
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
          headers: responseHeaders,
          method: req.method,
          path: pathAndQuery,
          message: `${req.method} ${url.pathname}: the service answered ${status} with a body that is not JSON`,
        });
      }
      return { status, headers: responseHeaders, body, path: pathAndQuery };
    }
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
    timeout: AbortSignal,
    timeoutMs: number,
    req: TransportRequest,
    path: string,
    afterHeaders = false,
  ): AgentSessionsError {
    if (outer?.aborted) return new AbortError(`${req.method} ${path} aborted`, { cause: outer.reason });
    if (timeout.aborted) return new TimeoutError(`${req.method} ${path} timed out after ${timeoutMs} ms`);
    const code = errorCode(error);
    const beforeSend = !afterHeaders && code !== undefined && BEFORE_SEND_CODES.has(code);
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
