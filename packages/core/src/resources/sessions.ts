import { type Logger, silentLogger } from '../core/logger.js';
import type { RequestOptions, Transport } from '../core/transport.js';
import { validateRequest } from '../core/validate.js';
import { applyPage, createCursor, type KeyedMessage, nextQuery } from '../messages-cursor.js';
import { idSchema } from '../schemas/common.js';
import {
  type HumanInputAck,
  type HumanInputResponseRequest,
  humanInputAckSchema,
  humanInputResponseRequestSchema,
} from '../schemas/human-input.js';
import {
  type Message,
  type MessagesPage,
  type MessagesQuery,
  messagesPageSchema,
  messagesQuerySchema,
} from '../schemas/messages.js';
import {
  type CreateSessionRequest,
  type CreateSessionResponse,
  createSessionRequestSchema,
  createSessionResponseSchema,
  type SessionStatus,
  sessionStatusSchema,
} from '../schemas/sessions.js';
import {
  type SignalRequest,
  type SignalResponse,
  signalRequestSchema,
  signalResponseSchema,
} from '../schemas/signal.js';

const sessionIdSchema = idSchema('sessionId');
const inputIdSchema = idSchema('inputId');

const path = (sessionId: string, suffix = '') => `/v1/sessions/${encodeURIComponent(sessionId)}${suffix}`;

export interface ListMessagesOptions extends RequestOptions {
  /** Start after this round (a roundId), as the contract's `after`. */
  after?: string;
  /** Messages per request; 200 (the maximum) by default, so fewer requests and rounds rarely split. */
  pageSize?: number;
  /** Called when the service's paging may have skipped messages (a round larger than a page). */
  onGap?: (roundId: string) => void;
}

export class Sessions {
  /** Unknown status values already logged: once each is enough. */
  readonly #unknownStatuses = new Set<string>();

  constructor(
    readonly transport: Transport,
    readonly logger: Logger = silentLogger,
  ) {}

  /** `POST /v1/sessions`. Never retried once it may have reached the service: no duplicate session. */
  async create(body: CreateSessionRequest, options?: RequestOptions): Promise<CreateSessionResponse> {
    const valid = validateRequest('sessions.create', createSessionRequestSchema, body);
    return this.transport.request(
      { method: 'POST', path: '/v1/sessions', body: valid, idempotent: false, authenticated: true, options },
      createSessionResponseSchema,
    );
  }

  /** `GET /v1/sessions/{id}`: status, cost, rounds, completion report. */
  async get(sessionId: string, options?: RequestOptions): Promise<SessionStatus> {
    const id = validateRequest('sessions.get', sessionIdSchema, sessionId, 'sessionId');
    const status = await this.transport.request(
      { method: 'GET', path: path(id), idempotent: true, authenticated: true, options },
      sessionStatusSchema,
    );
    if (!status.statusKnown && !this.#unknownStatuses.has(status.status)) {
      this.#unknownStatuses.add(status.status);
      this.logger.warn(
        { sessionId: id, status: status.status },
        'unknown session status: shown as is, treated as not finished',
      );
    }
    return status;
  }

  /** `POST /v1/sessions/{id}/signal`. */
  async signal(sessionId: string, body: SignalRequest, options?: RequestOptions): Promise<SignalResponse> {
    const id = validateRequest('sessions.signal', sessionIdSchema, sessionId, 'sessionId');
    const valid = validateRequest('sessions.signal', signalRequestSchema, body);
    return this.transport.request(
      {
        method: 'POST',
        path: path(id, '/signal'),
        body: valid,
        idempotent: false,
        authenticated: true,
        options,
      },
      signalResponseSchema,
    );
  }

  pause(
    sessionId: string,
    body: { reason?: string } = {},
    options?: RequestOptions,
  ): Promise<SignalResponse> {
    return this.signal(sessionId, { type: 'pause', ...body }, options);
  }

  /** Resuming from cost_limit needs a `newBudget` greater than what was spent. */
  resume(
    sessionId: string,
    body: { newBudget?: number; message?: string } = {},
    options?: RequestOptions,
  ): Promise<SignalResponse> {
    return this.signal(sessionId, { type: 'resume', ...body }, options);
  }

  cancel(
    sessionId: string,
    body: { reason?: string } = {},
    options?: RequestOptions,
  ): Promise<SignalResponse> {
    return this.signal(sessionId, { type: 'cancel', ...body }, options);
  }

  redirect(sessionId: string, body: { message: string }, options?: RequestOptions): Promise<SignalResponse> {
    return this.signal(sessionId, { type: 'redirect', ...body }, options);
  }

  /** `POST /v1/sessions/{id}/human-input/{inputId}`: answers a question. Never retried blindly. */
  async respond(
    sessionId: string,
    inputId: string,
    body: HumanInputResponseRequest,
    options?: RequestOptions,
  ): Promise<HumanInputAck> {
    const id = validateRequest('sessions.respond', sessionIdSchema, sessionId, 'sessionId');
    const input = validateRequest('sessions.respond', inputIdSchema, inputId, 'inputId');
    const valid = validateRequest('sessions.respond', humanInputResponseRequestSchema, body);
    return this.transport.request(
      {
        method: 'POST',
        path: path(id, `/human-input/${encodeURIComponent(input)}`),
        body: valid,
        idempotent: false,
        authenticated: true,
        options,
      },
      humanInputAckSchema,
    );
  }

  /** `GET /v1/sessions/{id}/messages`: one page, oldest first. */
  async messages(
    sessionId: string,
    query: MessagesQuery = {},
    options?: RequestOptions,
  ): Promise<MessagesPage> {
    const id = validateRequest('sessions.messages', sessionIdSchema, sessionId, 'sessionId');
    const valid = validateRequest('sessions.messages', messagesQuerySchema, query);
    return this.transport.request(
      {
        method: 'GET',
        path: path(id, '/messages'),
        query: { limit: valid.limit, after: valid.after },
        idempotent: true,
        authenticated: true,
        options,
      },
      messagesPageSchema,
    );
  }

  /**
   * Every message, oldest first, following `hasMore` page after page. Unlike following `lastRoundId`
   * naively, a round cut by the page limit is re-read from its start, so nothing is skipped or repeated.
   */
  async *listMessages(
    sessionId: string,
    options: ListMessagesOptions = {},
  ): AsyncGenerator<KeyedMessage<Message>> {
    const pageSize = validateRequest('sessions.listMessages', messagesQuerySchema, {
      limit: options.pageSize ?? 200,
    }).limit;
    let cursor = { ...createCursor(), afterRoundId: options.after ?? null };
    for (;;) {
      const page = await this.messages(sessionId, { limit: pageSize, ...nextQuery(cursor) }, options);
      const applied = applyPage(cursor, page);
      if (applied.gapPossible) options.onGap?.(applied.cursor.afterRoundId ?? '');
      cursor = applied.cursor;
      yield* applied.fresh;
      if (!page.pagination.hasMore) return;
    }
  }
}
