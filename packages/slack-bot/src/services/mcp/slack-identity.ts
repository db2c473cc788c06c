import { createHmac, timingSafeEqual } from 'node:crypto';
import type { LRUCache } from 'lru-cache';
import type { Workspace } from '../../workspace.js';
import { ttlCache } from '../ttl-cache.js';
import { fieldOf, messagesOf } from './json-rpc-body.js';
import type { McpCaller } from './tokens.js';

/**
 * Slack identity auth, the way Slackbot's MCP client calls an app's MCP server: each request is signed
 * as Slack signs every request to an app (`X-Slack-Signature: v0=` + hex HMAC-SHA256 of
 * `v0:<X-Slack-Request-Timestamp>:<raw body>` with the app's signing secret), and a tool call names the
 * person asking in its JSON-RPC `params._meta.slack` (`user_id`, `team_id`, `enterprise_id`). Only the
 * signature makes those ids worth believing: they are read from a body Slack signed, never on their own.
 */

/** Slack's window: a request signed longer ago (or later) than this is refused as a possible replay. */
export const SIGNATURE_WINDOW_SECONDS = 5 * 60;

/** The host as the audit names it: "via MCP, Slackbot". */
export const SLACKBOT_HOST = 'Slackbot';

/** What stands for a token in a Slackbot caller: there is none, the signature vouches for the request. */
export const SLACKBOT_TOKEN_ID = 'slack-identity';

/** The person a signed tool call names, as Slack put them in `params._meta.slack`. */
export interface SlackPerson {
  userId: string;
  teamId: string;
  enterpriseId?: string;
}

/**
 * Signatures taken, remembered on this replica so that a request seen on its way (a proxy, logs with
 * bodies) can't be sent again as its person: as long as a timestamp stays inside the window, either side
 * of now. At most this many: past it the oldest are forgotten first (a flood larger than this in ten
 * minutes is far beyond what Slackbot sends).
 */
const MAX_SIGNATURES_SEEN = 50_000;

export type SignedRequest =
  | { ok: true; body: unknown; person?: SlackPerson }
  | { ok: false; status: 400 | 401; message: string };

export class SlackIdentityAuth {
  readonly #seen: LRUCache<string, true>;

  constructor(
    private readonly deps: {
      signingSecret: string;
      now?: () => number;
    },
  ) {
    this.#seen = ttlCache({
      max: MAX_SIGNATURES_SEEN,
      ttlMs: 2 * SIGNATURE_WINDOW_SECONDS * 1000,
      ...(deps.now ? { now: deps.now } : {}),
    });
  }

  /**
   * The raw body checked against its signature and timestamp, then parsed, with the person it names.
   * A tool call that names nobody is refused: there would be no one to act as; so is a signature taken
   * before (a replay).
   */
  check(headers: Record<string, string | string[] | undefined>, rawBody: string): SignedRequest {
    const signature = first(headers['x-slack-signature']) ?? '';
    const timestamp = first(headers['x-slack-request-timestamp']) ?? '';
    if (!/^\d{1,12}$/.test(timestamp))
      return refusal(401, 'X-Slack-Request-Timestamp: required, whole seconds since 1970');
    const nowSeconds = Math.floor((this.deps.now?.() ?? Date.now()) / 1000);
    if (Math.abs(nowSeconds - Number(timestamp)) > SIGNATURE_WINDOW_SECONDS)
      return refusal(401, `X-Slack-Request-Timestamp: more than ${SIGNATURE_WINDOW_SECONDS} s from now`);
    const expected = `v0=${createHmac('sha256', this.deps.signingSecret).update(`v0:${timestamp}:${rawBody}`).digest('hex')}`;
    if (!sameText(signature, expected))
      return refusal(401, 'X-Slack-Signature: does not match the body (signed with another secret?)');
    if (this.#seen.has(signature))
      return refusal(
        401,
        'X-Slack-Signature: this signed request was already taken (a replay): sign each once',
      );
    let body: unknown;
    try {
      body = JSON.parse(rawBody);
    } catch {
      return refusal(400, 'the body: not JSON');
    }
    const named = peopleNamed(body);
    if (named === 'differ') return refusal(400, 'params._meta.slack: the messages name different people');
    if (anonymousToolCall(body))
      return refusal(
        401,
        'params._meta.slack: a tool call from Slack must name the person (user_id, team_id)',
      );
    this.#seen.set(signature, true);
    return { ok: true, body, ...(named ? { person: named } : {}) };
  }
}

/** Who a signed request acts as, once its workspace is known to be served. */
export const slackbotCaller = (person: SlackPerson, workspace: Workspace): McpCaller => ({
  tokenId: SLACKBOT_TOKEN_ID,
  userId: person.userId,
  workspace,
  // A signature holds for its request only: nothing to expire later.
  expiresAt: new Date(Date.now() + SIGNATURE_WINDOW_SECONDS * 1000).toISOString(),
  lastClient: SLACKBOT_HOST,
});

const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

function sameText(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

const refusal = (status: 400 | 401, message: string): SignedRequest => ({ ok: false, status, message });

const SLACK_ID = /^[A-Z][A-Z0-9]{1,40}$/;

/** The person one message names in `params._meta.slack`, if it names one with ids of Slack's shape. */
function personIn(message: unknown): SlackPerson | undefined {
  const params = fieldOf(message, 'params');
  const slack = fieldOf(fieldOf(params, '_meta'), 'slack');
  const userId = fieldOf(slack, 'user_id');
  const teamId = fieldOf(slack, 'team_id');
  const enterpriseId = fieldOf(slack, 'enterprise_id');
  if (typeof userId !== 'string' || typeof teamId !== 'string') return undefined;
  if (!SLACK_ID.test(userId) || !SLACK_ID.test(teamId)) return undefined;
  return {
    userId,
    teamId,
    ...(typeof enterpriseId === 'string' && SLACK_ID.test(enterpriseId) ? { enterpriseId } : {}),
  };
}

/** The one person the body's messages name; 'differ' when two name different people. */
function peopleNamed(body: unknown): SlackPerson | 'differ' | undefined {
  let found: SlackPerson | undefined;
  for (const message of messagesOf(body)) {
    const person = personIn(message);
    if (!person) continue;
    if (
      found &&
      (found.userId !== person.userId ||
        found.teamId !== person.teamId ||
        found.enterpriseId !== person.enterpriseId)
    )
      return 'differ';
    found = person;
  }
  return found;
}

/** Whether a message calls a tool without naming the person: there is no one to act as. */
function anonymousToolCall(body: unknown): boolean {
  return messagesOf(body).some((m) => fieldOf(m, 'method') === 'tools/call' && !personIn(m));
}
