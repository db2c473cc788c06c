/**
 * Every failure the client reports. `ServiceError` and its subclasses are answers from the service;
 * `ConnectionError`, `TimeoutError` and `AbortError` mean no answer came. `ValidationError` (a
 * `SessionError` with `sent: false`) means the request was never sent. None of them ever carries the API key.
 */

export class AgentSessionsError extends Error {
  override name = 'AgentSessionsError';
}

export interface ValidationIssue {
  /** Dotted path of the offending field, e.g. `guardrails.maxIterations`. */
  field: string;
  /** The rule it broke, for people. */
  message: string;
}

export interface ServiceErrorInit {
  status: number;
  body: unknown;
  headers: Record<string, string>;
  message: string;
  method: string;
  path: string;
}

export class ServiceError extends AgentSessionsError {
  override name = 'ServiceError';
  readonly status: number;
  /** The parsed JSON body, or the text (truncated) when it wasn't JSON. */
  readonly body: unknown;
  readonly headers: Record<string, string>;
  readonly requestId: string | undefined;
  readonly method: string;
  /** Path and query of the request, e.g. `/v1/sessions/s_1`. */
  readonly path: string;
  /** True: the service answered. Only `ValidationError` (refused before sending) says false. */
  readonly sent: boolean = true;

  constructor(init: ServiceErrorInit) {
    super(init.message);
    this.status = init.status;
    this.body = init.body;
    this.headers = init.headers;
    this.requestId = init.headers['x-request-id'] ?? init.headers['request-id'];
    this.method = init.method;
    this.path = init.path;
  }
}

export class SessionError extends ServiceError {
  override name = 'SessionError';
}
/**
 * A request that breaks the contract's rules, caught before sending: the service never saw it.
 *
 * A kind of `SessionError` (the spec's "400 invalid request"), because it is exactly the request the
 * service would answer 400 to: code that handles an invalid request handles both, and code that must tell
 * them apart checks `sent` (false here) or `instanceof ValidationError`. `status` is 400, `body` is
 * `{ error: message }`, there are no headers or request id, and `method`/`path` are empty when the
 * request was refused before a path was built.
 */
export class ValidationError extends SessionError {
  override name = 'ValidationError';
  /** The service never received this request. */
  override readonly sent = false;
  constructor(
    readonly operation: string,
    readonly issues: ValidationIssue[],
  ) {
    const message = `${operation}: ${issues.map((i) => `${i.field}: ${i.message}`).join('; ')}`;
    super({ status: 400, body: { error: message }, headers: {}, message, method: '', path: '' });
  }
}
export class AuthenticationError extends ServiceError {
  override name = 'AuthenticationError';
}
export class PermissionDeniedError extends ServiceError {
  override name = 'PermissionDeniedError';
}
export class NotFoundError extends ServiceError {
  override name = 'NotFoundError';
}
export class RateLimitError extends ServiceError {
  override name = 'RateLimitError';
  /** How long the service asked us to wait, when it said. */
  readonly retryAfterMs: number | undefined;
  constructor(init: ServiceErrorInit & { retryAfterMs: number | undefined }) {
    super(init);
    this.retryAfterMs = init.retryAfterMs;
  }
}
export class InternalServerError extends ServiceError {
  override name = 'InternalServerError';
}
/** A 2xx whose body doesn't have what the contract promises (e.g. no sessionId). */
export class InvalidResponseError extends ServiceError {
  override name = 'InvalidResponseError';
}

export class ConnectionError extends AgentSessionsError {
  override name = 'ConnectionError';
  /** True when the request can't have reached the service (refused, DNS): safe to retry even a POST. */
  readonly beforeSend: boolean;
  constructor(message: string, options: { cause?: unknown; beforeSend: boolean }) {
    super(message, { cause: options.cause });
    this.beforeSend = options.beforeSend;
  }
}

export class TimeoutError extends AgentSessionsError {
  override name = 'TimeoutError';
}

export class AbortError extends AgentSessionsError {
  override name = 'AbortError';
}

/** One factory from status, body and headers to the right class. */
export function errorFromResponse(
  init: Omit<ServiceErrorInit, 'message'> & { message?: string; retryAfterMs?: number | undefined },
): ServiceError {
  const message = init.message ?? messageFor(init.status, init.body);
  const full = { ...init, message };
  switch (true) {
    case init.status === 400:
      return new SessionError(full);
    case init.status === 401:
      return new AuthenticationError(full);
    case init.status === 403:
      return new PermissionDeniedError(full);
    case init.status === 404:
      return new NotFoundError(full);
    case init.status === 429:
      return new RateLimitError({ ...full, retryAfterMs: init.retryAfterMs });
    case init.status >= 500:
      return new InternalServerError(full);
    default:
      return new ServiceError(full);
  }
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  408: 'Request Timeout',
  409: 'Conflict',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/** The service's `error` string when it sent one; else the status line (never a dump of an HTML page). */
function messageFor(status: number, body: unknown): string {
  if (body && typeof body === 'object' && typeof (body as { error?: unknown }).error === 'string') {
    return (body as { error: string }).error;
  }
  return `${status} ${REASONS[status] ?? 'Error'}`;
}
