import { errorFromResponse, InvalidResponseError, type ServiceError } from './errors.js';
import { serverRequestedDelayMs } from './retry.js';

/**
 * The seam between the contract and whatever carries HTTP. `AgentSessionsClient` plugs in its undici
 * transport (pooled, retrying); the n8n node plugs in `httpRequestWithAuthentication`. Everything above
 * this seam (validation, reading responses, error mapping, waiting) is pure: no timers, no `process`, no I/O.
 */

export interface RequestOptions {
  /** Aborts this request (and its retries). */
  signal?: AbortSignal;
  /** Per attempt. Default: the client's `timeoutMs`. A plain request function may ignore it. */
  timeoutMs?: number;
  /** Default: the client's `maxRetries`. A plain request function may ignore it. */
  maxRetries?: number;
}

/** One request as the contract describes it; the carrier adds the base URL and the API key. */
export interface ApiRequest {
  method: 'GET' | 'POST';
  /** Path from the base URL, ids already encoded, e.g. `/v1/sessions/s_1/messages`. */
  path: string;
  /** Query parameters; `undefined` values are not sent. */
  query?: Record<string, string | number | undefined>;
  /** JSON body (POST only). */
  body?: unknown;
  /** Safe to repeat (a GET). A carrier that retries must never retry a non-idempotent request blindly. */
  idempotent: boolean;
  /** False for signup, which takes no key. */
  authenticated: boolean;
  signal?: AbortSignal;
  timeoutMs?: number;
  maxRetries?: number;
}

/** What came back. Any status: a non-2xx is turned into the typed error here, by one factory. */
export interface ApiResponse {
  status: number;
  /** Response headers (names in any case). Optional: used for Retry-After and request ids. */
  headers?: Record<string, string | string[] | undefined>;
  /** Parsed JSON, or the text when it wasn't JSON (a string that holds JSON is parsed here). */
  body: unknown;
}

export type RequestFunction = (request: ApiRequest) => Promise<ApiResponse>;

/** Resolves after `ms`; rejects (with an AbortError) as soon as `signal` aborts. */
export type SleepFunction = (ms: number, signal?: AbortSignal) => Promise<void>;

/** A 2xx. */
export interface OkResponse {
  status: number;
  /** Flattened to lower-case names on first use: only an error needs them, and this is the hot path. */
  readonly headers: Record<string, string>;
  body: unknown;
  /** The body was text that isn't JSON. */
  notJson: boolean;
}

class Ok implements OkResponse {
  #headers: Record<string, string> | undefined;
  readonly #raw: ApiResponse['headers'];
  constructor(
    readonly status: number,
    raw: ApiResponse['headers'],
    readonly body: unknown,
    readonly notJson: boolean,
  ) {
    this.#raw = raw;
  }
  get headers(): Record<string, string> {
    this.#headers ??= flattenHeaders(this.#raw);
    return this.#headers;
  }
}

const MAX_ERROR_BODY_CHARS = 2_000;

function flattenHeaders(
  raw: Record<string, string | string[] | undefined> | undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw ?? {})) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/**
 * Sends through `request` and returns a 2xx; any other status becomes the typed error of
 * `errorFromResponse` (SessionError 400, AuthenticationError 401, … RateLimitError 429 with retryAfterMs).
 * The caller's per-request `options` are laid on `req`, each only when given (a request function sees no others).
 */
export async function send(
  request: RequestFunction,
  req: ApiRequest,
  options?: RequestOptions,
): Promise<OkResponse> {
  if (options !== undefined) {
    if (options.signal) req.signal = options.signal;
    if (options.timeoutMs !== undefined) req.timeoutMs = options.timeoutMs;
    if (options.maxRetries !== undefined) req.maxRetries = options.maxRetries;
  }
  const response = await request(req);
  // The body: a string that holds JSON is parsed; other text is kept as it came (notJson).
  let body = response.body;
  let notJson = false;
  if (typeof body === 'string') {
    if (body === '') body = undefined;
    else {
      try {
        body = JSON.parse(body);
      } catch {
        notJson = true;
      }
    }
  }
  if (response.status >= 200 && response.status < 300)
    return new Ok(response.status, response.headers, body, notJson);
  throw responseError(
    response.status,
    response.headers,
    typeof body === 'string' ? cutErrorText(body) : body,
    req.method,
    pathWithQuery(req),
  );
}

/** The typed error of a non-2xx answer (`errorFromResponse`), with the server's Retry-After read. */
export function responseError(
  status: number,
  rawHeaders: ApiResponse['headers'],
  body: unknown,
  method: string,
  path: string,
): ServiceError {
  const headers = flattenHeaders(rawHeaders);
  return errorFromResponse({
    status,
    body,
    headers,
    method,
    path,
    retryAfterMs: serverRequestedDelayMs(headers),
  });
}

/** An error body's text, cut to what an error needs (never a whole HTML page). */
export function cutErrorText(text: string): string {
  return text.length > MAX_ERROR_BODY_CHARS ? `${text.slice(0, MAX_ERROR_BODY_CHARS)}…` : text;
}

/** A 2xx whose body can't be used: the `InvalidResponseError` that names each problem. */
export function contractMismatch(
  response: OkResponse,
  method: string,
  path: string,
  problems: readonly string[],
): InvalidResponseError {
  return new InvalidResponseError({
    status: response.status,
    body: response.body,
    headers: response.headers,
    method,
    path,
    message: `${method} ${path}: the service's answer does not match the contract (${problems.join('; ')})`,
  });
}

/** Path and query as sent, for error messages and logs. */
export function pathWithQuery(req: Pick<ApiRequest, 'path' | 'query'>): string {
  if (!req.query) return req.path;
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(req.query)) if (v !== undefined) params.set(k, String(v));
  const text = params.toString();
  return text === '' ? req.path : `${req.path}?${text}`;
}
