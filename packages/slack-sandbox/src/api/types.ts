import type { Interactions } from '../interactions.js';
import type { Workspace } from '../workspace.js';

export type Args = Record<string, unknown>;

export interface ApiContext {
  workspace: Workspace;
  interactions: Interactions;
  /** The sandbox's own base URL, for URLs it hands out (uploads, permalinks). */
  baseUrl: () => string;
  /** Size limits Slack applies whether or not rate limits are on. */
  limits?: ApiLimits;
  /** Who the token is, when an OAuth install issued it (default: the workspace's bot). */
  caller?: Caller;
}

/** The identity behind an OAuth token, as auth.test tells it. */
export interface Caller {
  kind: 'bot' | 'user';
  /** The bot user's id, or the person's. */
  userId: string;
  /** Seconds left, for an expiring (rotating) token. */
  expiresIn?: number;
  enterpriseId?: string;
  isEnterpriseInstall: boolean;
}

export interface ApiLimits {
  /** The per-message block budget past which Slack answers `msg_blocks_too_long`. */
  maxBlocksChars: number;
  /** conversations.history / replies: the largest `limit`, and the one used when none is given. */
  historyPage: { max: number; default: number };
}

export type Method = (args: Args, ctx: ApiContext) => Record<string, unknown>;

/** A Slack error answer: HTTP 200 with `{ok: false, error}` (and details where Slack gives them). */
export class SlackApiError extends Error {
  constructor(
    readonly code: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(code);
  }
}

export const str = (args: Args, name: string): string | undefined => {
  const v = args[name];
  return typeof v === 'string' && v !== '' ? v : undefined;
};

export const required = (args: Args, name: string): string => {
  const v = str(args, name);
  if (v === undefined)
    throw new SlackApiError('invalid_arguments', {
      response_metadata: { messages: [`[ERROR] missing required field: ${name}`] },
    });
  return v;
};

/** `blocks` / `view` arrive JSON-encoded in form bodies (that is how the WebClient sends them). */
export const json = (args: Args, name: string): unknown => {
  const v = args[name];
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    throw new SlackApiError(name === 'blocks' ? 'invalid_blocks_format' : 'invalid_arguments');
  }
};
