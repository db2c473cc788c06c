/**
 * The session endpoints over an injected request function: one method per endpoint, plus `listMessages`
 * that reads every page: the contract's one resource, kept in one class as the SDKs keep an endpoint
 * group. What it leans on has its own files (the request loop in ../http, the response readers in
 * ../schemas/responses, the message cursor in ../messages).
 */
import { type Logger, silentLogger } from '../http/logger.js';
import {
  type ApiRequest,
  contractMismatch,
  type OkResponse,
  type RequestFunction,
  type RequestOptions,
  type SleepFunction,
  send,
} from '../http/request.js';
import {
  createSessionRule,
  humanInputResponseRule,
  idRule,
  messagesQueryRule,
  signalRule,
} from '../http/request-rules.js';
import { checkRequest } from '../http/validate.js';
import {
  applyPage,
  createCursor,
  type KeyedMessage,
  MessagesPagingError,
  nextQuery,
  noProgressError,
  type RoundsInfo,
} from '../messages/index.js';
import type { HumanInputResponseRequest } from '../schemas/human-input.js';
import type { MessagesQuery } from '../schemas/messages.js';
import {
  type CreateSessionResponse,
  type HumanInputAck,
  type Message,
  type MessagesPage,
  type ReadIssue,
  type ReadResult,
  readCreateSessionResponse,
  readHumanInputAck,
  readMessagesPage,
  readSessionStatus,
  readSignalResponse,
  type SessionStatus,
  type SignalResponse,
} from '../schemas/responses/index.js';
import type { CreateSessionRequest } from '../schemas/sessions.js';
import type { SignalRequest } from '../schemas/signal.js';
import { type WaitOptions, waitForCompletion } from '../wait.js';

// The request rules in plain code (the schemas in ../schemas describe the same): no zod in the pure API.
const sessionIdRule = idRule('sessionId');
const inputIdRule = idRule('inputId');

/** listMessages' default page cap: far beyond any session, yet a bound. */
const DEFAULT_MAX_PAGES = 1_000;

/**
 * A query `messagesQueryRule` accepts as it is (limit a whole number 1–200, after a string, each
 * optional), told at once: the follower sends one per page. Anything else goes through the rule, which
 * says what is wrong, so what is accepted and refused is the rule's alone.
 */
function isPlainQuery(query: MessagesQuery): query is { limit?: number; after?: string } {
  if (typeof query !== 'object' || query === null || Object.getPrototypeOf(query) !== Object.prototype)
    return false;
  const { limit, after } = query;
  return (
    (limit === undefined || (Number.isInteger(limit) && limit >= 1 && limit <= 200)) &&
    (after === undefined || typeof after === 'string')
  );
}

const path = (sessionId: string, suffix = '') => `/v1/sessions/${encodeURIComponent(sessionId)}${suffix}`;

/** Ids whose paths are kept; a follower of more sessions than this only checks some ids again. */
const MAX_REMEMBERED_SESSIONS = 4_096;

interface SessionRoutes {
  /** `/v1/sessions/{id}`, the id percent-encoded. */
  readonly status: string;
  /** `/v1/sessions/{id}/messages`. */
  readonly messages: string;
}

/** Odd shapes logged so far: once per route and shape is enough (a poller would repeat it forever). */
const MAX_REMEMBERED_SHAPES = 200;

export interface ListMessagesOptions extends RequestOptions {
  /** Start after this round (a roundId), as the contract's `after`. */
  after?: string;
  /** Messages per request; 200 (the maximum) by default, so fewer requests and rounds rarely split. */
  pageSize?: number;
  /**
   * Requests at most; default 1,000 (200,000 messages at the default page size). Reaching it throws a
   * `MessagesPagingError` (reason `page_cap`) after the messages read were yielded.
   */
  maxPages?: number;
  /** What the session's status says of its rounds (`roundsInfoOf(status.rounds)`): fewer re-reads. */
  rounds?: RoundsInfo;
  /**
   * Called when the service's paging may have skipped messages: a page full of rounds that may still
   * grow, so the read had to step past them. `roundId` is the round it stepped to.
   */
  onGap?: (roundId: string) => void;
}

export interface SessionsApiOptions {
  /** Carries one request (see `ApiRequest`): `AgentSessionsClient`'s undici transport, or n8n's helper. */
  request: RequestFunction;
  /** Abortable sleep, for `waitForCompletion`. */
  sleep: SleepFunction;
  /** The clock of `waitForCompletion`'s deadline. Default `Date.now`. */
  now?: () => number;
  /** pino-shaped; gets unknown statuses and responses that don't match the contract, once each. */
  logger?: Logger;
}

/**
 * The session endpoints over any request function: requests checked against the spec's rules, responses
 * read field by field, statuses turned into typed errors. Pure: no timers, no I/O of its own.
 */
export function createSessionsApi(options: SessionsApiOptions): Sessions {
  return new Sessions(options);
}

export class Sessions {
  /** Unknown status values already logged: once each is enough. */
  readonly #unknownStatuses = new Set<string>();
  /** Route + shape of odd responses already logged. */
  readonly #loggedShapes = new Set<string>();
  /** Checked ids and their paths (see `#routesOf`). */
  readonly #routes = new Map<string, SessionRoutes>();
  readonly #request: RequestFunction;
  readonly logger: Logger;
  readonly sleep: SleepFunction;
  readonly now: () => number;

  constructor(options: SessionsApiOptions) {
    this.#request = options.request;
    this.sleep = options.sleep;
    this.now = options.now ?? Date.now;
    this.logger = options.logger ?? silentLogger;
  }

  /**
   * The paths of one session, its id checked once: a follower asks for the same sessions over and over.
   * Only ids that passed are kept (a refused one is checked, and refused, every time).
   */
  #routesOf(operation: string, sessionId: string): SessionRoutes {
    const known = this.#routes.get(sessionId);
    if (known !== undefined) return known;
    const id = checkRequest(operation, sessionIdRule, sessionId, 'sessionId');
    const routes: SessionRoutes = { status: path(id), messages: path(id, '/messages') };
    // Bounded: the oldest id goes first (a Map iterates in insertion order). Not lru-cache, as the bot's
    // caches are: this class is in the pure API the n8n node bundles, and n8n's scanner refuses lru-cache's
    // `process` and timer globals.
    if (this.#routes.size >= MAX_REMEMBERED_SESSIONS) {
      const oldest = this.#routes.keys().next().value;
      if (oldest !== undefined) this.#routes.delete(oldest);
    }
    this.#routes.set(id, routes);
    return routes;
  }

  /** Logs an odd shape once per route and shape. */
  #noteShape(route: string, issues: readonly string[], level: 'warn' | 'info' = 'warn'): void {
    if (issues.length === 0) return;
    // The shape, not the place: `messages.3.content` and `messages.9.content` are the same oddity.
    const shape = [...new Set(issues.map((i) => i.replace(/\.\d+\./g, '[].')))];
    const key = `${route} ${shape.join('; ')}`;
    if (this.#loggedShapes.has(key) || this.#loggedShapes.size >= MAX_REMEMBERED_SHAPES) return;
    this.#loggedShapes.add(key);
    this.logger[level](
      { route, issues: shape },
      'the service answered in a shape the contract does not describe; read leniently',
    );
  }

  /** A read (GET): its strict fields must be there, or it fails; anything else odd is logged once. */
  #read<T>(route: string, req: ApiRequest, response: OkResponse, result: ReadResult<T>): T {
    const issues = (r: ReadIssue[]) => r.map((i) => `${i.path}: ${i.problem}`);
    if (response.notJson || !result.ok) {
      const problems = response.notJson ? ['body: not JSON'] : issues(result.issues);
      throw contractMismatch(response, req.method, req.path, problems);
    }
    this.#noteShape(route, issues(result.issues), 'info');
    return result.value;
  }

  /** A POST's 2xx: never an error (the service acted), whatever its body; an odd one is logged once. */
  #acted<T extends { contractIssues?: string[] }>(route: string, result: T): T {
    if (result.contractIssues) this.#noteShape(route, result.contractIssues);
    return result;
  }

  /** `POST /v1/sessions`. Never retried once it may have reached the service: no duplicate session. */
  async create(body: CreateSessionRequest, options?: RequestOptions): Promise<CreateSessionResponse> {
    const valid = checkRequest('sessions.create', createSessionRule<CreateSessionRequest>, body);
    const response = await send(
      this.#request,
      { method: 'POST', path: '/v1/sessions', body: valid, idempotent: false, authenticated: true },
      options,
    );
    return this.#acted('POST /v1/sessions', readCreateSessionResponse(response.body));
  }

  /** `GET /v1/sessions/{id}`: status, cost, rounds, completion report. */
  async get(sessionId: string, options?: RequestOptions): Promise<SessionStatus> {
    const req: ApiRequest = {
      method: 'GET',
      path: this.#routesOf('sessions.get', sessionId).status,
      idempotent: true,
      authenticated: true,
    };
    const response = await send(this.#request, req, options);
    const status = this.#read('GET /v1/sessions/{id}', req, response, readSessionStatus(response.body));
    if (!status.statusKnown && !this.#unknownStatuses.has(status.status)) {
      this.#unknownStatuses.add(status.status);
      this.logger.warn(
        { sessionId, status: status.status },
        'unknown session status: shown as is, treated as not finished',
      );
    }
    return status;
  }

  /** `POST /v1/sessions/{id}/signal`. */
  async signal(sessionId: string, body: SignalRequest, options?: RequestOptions): Promise<SignalResponse> {
    const id = checkRequest('sessions.signal', sessionIdRule, sessionId, 'sessionId');
    const valid = checkRequest('sessions.signal', signalRule<SignalRequest>, body);
    const response = await send(
      this.#request,
      { method: 'POST', path: path(id, '/signal'), body: valid, idempotent: false, authenticated: true },
      options,
    );
    return this.#acted('POST /v1/sessions/{id}/signal', readSignalResponse(response.body));
  }

  /** Pause; `reason` and `message` go to the service as given. */
  pause(
    sessionId: string,
    body: { reason?: string; message?: string } = {},
    options?: RequestOptions,
  ): Promise<SignalResponse> {
    return this.signal(sessionId, { ...body, type: 'pause' }, options);
  }

  /** Resuming from cost_limit needs a `newBudget` greater than what was spent (the service's rule). */
  resume(
    sessionId: string,
    body: { newBudget?: number; message?: string; reason?: string } = {},
    options?: RequestOptions,
  ): Promise<SignalResponse> {
    return this.signal(sessionId, { ...body, type: 'resume' }, options);
  }

  cancel(
    sessionId: string,
    body: { reason?: string; message?: string } = {},
    options?: RequestOptions,
  ): Promise<SignalResponse> {
    return this.signal(sessionId, { ...body, type: 'cancel' }, options);
  }

  redirect(
    sessionId: string,
    body: { message: string; reason?: string },
    options?: RequestOptions,
  ): Promise<SignalResponse> {
    return this.signal(sessionId, { ...body, type: 'redirect' }, options);
  }

  /** `POST /v1/sessions/{id}/human-input/{inputId}`: answers a question. Never retried blindly. */
  async respond(
    sessionId: string,
    inputId: string,
    body: HumanInputResponseRequest,
    options?: RequestOptions,
  ): Promise<HumanInputAck> {
    const id = checkRequest('sessions.respond', sessionIdRule, sessionId, 'sessionId');
    const input = checkRequest('sessions.respond', inputIdRule, inputId, 'inputId');
    const valid = checkRequest('sessions.respond', humanInputResponseRule<HumanInputResponseRequest>, body);
    const response = await send(
      this.#request,
      {
        method: 'POST',
        path: path(id, `/human-input/${encodeURIComponent(input)}`),
        body: valid,
        idempotent: false,
        authenticated: true,
      },
      options,
    );
    return this.#acted('POST /v1/sessions/{id}/human-input/{inputId}', readHumanInputAck(response.body));
  }

  /** `GET /v1/sessions/{id}/messages`: one page, oldest first. */
  async messages(
    sessionId: string,
    query: MessagesQuery = {},
    options?: RequestOptions,
  ): Promise<MessagesPage> {
    const route = this.#routesOf('sessions.messages', sessionId).messages;
    const valid = isPlainQuery(query) ? query : checkRequest('sessions.messages', messagesQueryRule, query);
    const req: ApiRequest = {
      method: 'GET',
      path: route,
      query: { limit: valid.limit, after: valid.after },
      idempotent: true,
      authenticated: true,
    };
    const response = await send(this.#request, req, options);
    return this.#read('GET /v1/sessions/{id}/messages', req, response, readMessagesPage(response.body));
  }

  /** Polls until the session finishes (or needs a person) and returns its last status. */
  waitForCompletion(sessionId: string, options?: WaitOptions): Promise<SessionStatus> {
    return waitForCompletion(this, sessionId, options);
  }

  /**
   * Every message, oldest first, following `hasMore` page after page, each keyed by (round, position).
   * Unlike following `lastRoundId` naively, `after` never moves past a round that may still grow, so a
   * round cut by the page limit or interleaved with others is neither skipped nor repeated. A page that
   * makes no progress, or reaching `maxPages`, ends the read with a `MessagesPagingError`.
   */
  async *listMessages(
    sessionId: string,
    options: ListMessagesOptions = {},
  ): AsyncGenerator<KeyedMessage<Message>> {
    const pageSize = checkRequest('sessions.listMessages', messagesQueryRule, {
      limit: options.pageSize ?? 200,
    }).limit;
    const maxPages = options.maxPages ?? DEFAULT_MAX_PAGES;
    if (!(Number.isInteger(maxPages) && maxPages >= 1)) {
      throw new RangeError(`maxPages must be a whole number >= 1, got ${String(maxPages)}`);
    }
    let cursor = createCursor(options.after ?? null);
    for (let pages = 0; ; pages++) {
      if (pages === maxPages) {
        throw new MessagesPagingError(
          'page_cap',
          `listMessages stopped at its page cap (maxPages ${maxPages}) with more to read; ` +
            `read on with after=${cursor.afterRoundId ?? '(none)'} or raise maxPages`,
          cursor.afterRoundId,
        );
      }
      const page = await this.messages(sessionId, { limit: pageSize, ...nextQuery(cursor) }, options);
      const applied = applyPage(cursor, page, options.rounds, pageSize);
      cursor = applied.cursor;
      if (applied.gapPossible) options.onGap?.(cursor.afterRoundId ?? '');
      yield* applied.fresh;
      if (!page.pagination.hasMore) return;
      if (applied.stalled) throw noProgressError(cursor.afterRoundId);
    }
  }
}
