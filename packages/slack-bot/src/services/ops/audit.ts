import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  describeAnswer,
  type HumanInputAnswer,
  type HumanInputRequest,
  ServiceError,
} from '@agent-sessions/core';
import type { CustomRoute } from '@slack/bolt';
import { escapeMrkdwn, slackDate, truncate } from '../../blocks/text.js';
import type { Logger } from '../../logger.js';
import type { AuditAction, AuditEntry, AuditRecord, AuditRepository } from '../../store/audit.js';
import { currentWorkspace } from '../../workspace.js';

/** What the service answered an action, for its record: the status and request id of a failure. */
export function serviceAnswer(error?: unknown): Pick<AuditEntry, 'outcome' | 'httpStatus' | 'requestId'> {
  if (error === undefined) return { outcome: 'ok', httpStatus: null, requestId: null };
  return error instanceof ServiceError
    ? { outcome: 'error', httpStatus: error.sent ? error.status : null, requestId: error.requestId ?? null }
    : { outcome: 'error', httpStatus: null, requestId: null };
}

/** The record of an answer: approve/reject (with its reason) or the value sent. */
export function answerDetail(
  request: HumanInputRequest,
  answer: HumanInputAnswer,
): { action: AuditAction; detail: Record<string, unknown> } {
  const rejected = request.kind === 'approval' && answer.approved === false;
  return {
    action: rejected ? 'reject' : 'answer',
    detail: { kind: request.kind, answer, shown: describeAnswer(request, answer) },
  };
}

const VERB: Record<AuditAction, string> = {
  start: 'started the session',
  answer: 'answered',
  // The value shown already says "Rejected: <reason>".
  reject: 'answered',
  pause: 'paused',
  resume: 'resumed',
  cancel: 'cancelled',
  redirect: 'redirected',
  raise_budget: 'raised the budget',
  timeout: 'timed out',
};

/** One line of a record, for `/agent history` and the card's footer. */
export function describeRecord(
  r: Pick<AuditRecord, 'action' | 'userId' | 'detail' | 'outcome' | 'at'>,
): string {
  const who =
    r.userId === 'bot'
      ? 'The bot'
      : r.userId.startsWith('workflow:')
        ? `A workflow nobody ran (${escapeMrkdwn(r.userId.slice(9))})`
        : `<@${r.userId}>`;
  const d = r.detail ?? {};
  const said =
    typeof d.shown === 'string'
      ? d.shown
      : typeof d.reason === 'string'
        ? d.reason
        : typeof d.message === 'string'
          ? d.message
          : typeof d.newBudget === 'number'
            ? `$${d.newBudget.toFixed(2)}`
            : typeof d.goal === 'string'
              ? d.goal
              : typeof d.did === 'string'
                ? `${d.did} (AGENT_ON_TIMEOUT=${String(d.onTimeout)})`
                : '';
  const failed = r.outcome === 'error' ? ' _(refused by the service)_' : '';
  // An agent host that acted for the person (MCP) is named; Slack's own Stop button is said elsewhere.
  const host =
    typeof d.via === 'string' && d.via !== 'stop' ? ` _(${escapeMrkdwn(truncate(d.via, 80))})_` : '';
  return `${who} ${VERB[r.action]}${said ? `: ${escapeMrkdwn(truncate(said, 200))}` : ''}${host}${failed}`;
}

/**
 * The record of every human action on a session: written by the services as they act (a failure to
 * write is logged, never the action's failure), read by `/agent history` and GET /audit, pruned by age.
 */
export class AuditService {
  /** The workspace every user acts from (auth.test's team), set once the bot knows it. */
  teamId: string | undefined;

  constructor(
    private readonly deps: {
      audit: AuditRepository;
      logger: Logger;
      now?: () => Date;
      retentionDays: number;
      /**
       * OAuth installs: the bot serves several workspaces, and GET /audit answers only with a `team`
       * (`team=*` to read them all, asked for in so many words).
       */
      workspaces?: 'one' | 'many';
    },
  ) {}

  async record(entry: AuditEntry): Promise<void> {
    try {
      // The workspace acted from: the request's (OAuth installs), else the one auth.test named.
      await this.deps.audit.append({ teamId: currentWorkspace()?.teamId ?? this.teamId ?? null, ...entry });
    } catch (error) {
      this.deps.logger.error(
        { err: error, sessionId: entry.sessionId, action: entry.action },
        'could not audit',
      );
    }
  }

  /** The latest decision on a session's questions, for the card's footer. */
  async latestDecision(sessionId: string): Promise<string | undefined> {
    const last = await this.deps.audit.latest(sessionId, ['answer', 'reject', 'timeout']);
    return last ? `${describeRecord(last)} · ${slackDate(last.at)}` : undefined;
  }

  /** `/agent history <session-id>`: every record, oldest first (the last 40 when there are more). */
  async history(sessionId: string): Promise<string> {
    const records = await this.deps.audit.list({ sessionId });
    if (records.length === 0) return `No actions are recorded for session \`${escapeMrkdwn(sessionId)}\`.`;
    const shown = records.slice(-40);
    return [
      `*History of session \`${escapeMrkdwn(sessionId)}\`* (${records.length} actions${records.length > 40 ? ', the last 40' : ''})`,
      ...shown.map((r) => `• ${slackDate(r.at)} — ${describeRecord(r)}`),
    ].join('\n');
  }

  /** Deletes what is older than the retention; returns how many. */
  async prune(): Promise<number> {
    const now = this.deps.now?.() ?? new Date();
    return this.deps.audit.prune(new Date(now.getTime() - this.deps.retentionDays * 86_400_000));
  }

  /**
   * GET /audit?team=…&sessionId=…&since=…&after=…&limit=…: JSON lines, in the order written, a page of at most
   * `limit` (default and most: 10,000). When more follow, a `Link: <…>; rel="next"` header names the next
   * page (`after` = the last id sent) and `X-Audit-Next` its cursor. An operator's view: every session
   * of the workspace, DMs included — who holds AUDIT_TOKEN reads it all. Each record names its `teamId`;
   * `team=T…` keeps one workspace's. Serving several workspaces (OAuth), `team` is required — one token
   * reads every workspace, so reading across them is asked for (`team=*`), never what a query that forgot
   * the parameter gets. Off (404) without a token; a
   * missing or wrong bearer token is 401. Tokens are compared as SHA-256 digests in constant time, and
   * never logged.
   */
  routes(token: string | undefined): CustomRoute[] {
    const expected = token ? digest(token) : undefined;
    return [
      {
        path: '/audit',
        method: ['GET'],
        handler: (req, res) => {
          this.#serve(req, res, expected).catch((error: unknown) => {
            this.deps.logger.error({ err: error }, 'GET /audit failed');
            if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
            res.end('{"error":"internal error"}');
          });
        },
      },
    ];
  }

  async #serve(req: IncomingMessage, res: ServerResponse, expected: Buffer | undefined): Promise<void> {
    const json = (status: number, body: object, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    if (!expected) return json(404, { error: 'not found' });
    const header = req.headers.authorization ?? '';
    const given = /^Bearer\s+(.+)$/i.exec(header)?.[1];
    if (!given || !timingSafeEqual(digest(given), expected)) {
      return json(401, { error: 'a valid bearer token is required' }, { 'www-authenticate': 'Bearer' });
    }
    const query = new URL(req.url ?? '/', 'http://audit').searchParams;
    const sessionId = query.get('sessionId') ?? undefined;
    const team = teamParam(query, this.deps.workspaces ?? 'one');
    if (team.error) return json(400, { error: team.error });
    const since = query.get('since') ?? undefined;
    if (since !== undefined && Number.isNaN(Date.parse(since))) {
      return json(400, {
        error: `since must be an ISO 8601 time, like 2026-01-31T00:00:00Z; got "${since}"`,
      });
    }
    const after = wholeParam(query, 'after', 0, Number.MAX_SAFE_INTEGER);
    const limit = wholeParam(query, 'limit', 1, AUDIT_PAGE);
    if (typeof after === 'string') return json(400, { error: after });
    if (typeof limit === 'string') return json(400, { error: limit });
    const pageSize = limit ?? AUDIT_PAGE;
    const records = await this.deps.audit.list({
      ...(sessionId ? { sessionId } : {}),
      ...(team.teamId ? { teamId: team.teamId } : {}),
      ...(since ? { since: new Date(since).toISOString() } : {}),
      ...(after === undefined ? {} : { after }),
      // One more than the page: whether another page follows, without counting them all.
      limit: pageSize + 1,
    });
    const page = records.slice(0, pageSize);
    const last = page.at(-1);
    const headers: Record<string, string> = { 'content-type': 'application/x-ndjson' };
    if (records.length > pageSize && last) {
      query.set('after', String(last.id));
      headers.link = `</audit?${query.toString()}>; rel="next"`;
      headers['x-audit-next'] = String(last.id);
    }
    res.writeHead(200, headers);
    res.end(page.map((r) => `${JSON.stringify(r)}\n`).join(''));
  }
}

/**
 * The `team` parameter: a Slack team id (records carry the workspace acted from, also under an org-wide
 * install), or `*` for every workspace. Required when the
 * bot serves several workspaces, so one workspace's operator query never returns another's by default.
 */
function teamParam(query: URLSearchParams, workspaces: 'one' | 'many'): { teamId?: string; error?: string } {
  const raw = query.get('team');
  if (raw === null || raw === '') {
    return workspaces === 'many'
      ? {
          error:
            'team is required: this bot serves several workspaces (OAuth installs); team=T… reads one workspace, team=* all of them',
        }
      : {};
  }
  if (raw === '*') return {};
  if (/^T[A-Z0-9]{1,20}$/.test(raw)) return { teamId: raw };
  return {
    error: `team must be a Slack team id (T…, the workspace acted from) or *; got "${raw.slice(0, 40)}"`,
  };
}

/** The most records one GET /audit answers. */
const AUDIT_PAGE = 10_000;

/** A whole-number query parameter within bounds: the number, undefined when absent, or what is wrong. */
function wholeParam(
  query: URLSearchParams,
  name: string,
  min: number,
  max: number,
): number | string | undefined {
  const raw = query.get(name);
  if (raw === null) return undefined;
  const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (Number.isSafeInteger(value) && value >= min && value <= max) return value;
  return `${name} must be a whole number from ${min} to ${max}; got "${raw.slice(0, 40)}"`;
}

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();
