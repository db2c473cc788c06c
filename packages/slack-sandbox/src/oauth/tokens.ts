/**
 * The tokens a distributed Slack app holds, as Slack issues and checks them: bot and user access tokens
 * (long-lived, or expiring under token rotation), single-use refresh tokens, and what each answers once
 * expired or revoked. No token value ever leaves this module except in the answers Slack gives the app.
 */

import { randomBytes } from 'node:crypto';

export type TokenKind = 'bot' | 'user';

/** One installation of the app: into a workspace, or org-wide into an Enterprise Grid organization. */
export interface Grant {
  teamId: string;
  enterpriseId: string | undefined;
  isEnterpriseInstall: boolean;
  /** Who clicked Allow. */
  installerUserId: string;
  botUserId: string;
  botScopes: string[];
  userScopes: string[];
  /** False once the app was uninstalled from the workspace: every token of the grant is revoked. */
  active: boolean;
  installedAt: number;
}

export interface AccessToken {
  kind: TokenKind;
  /** The bot user's id for a bot token, the person's for a user token. */
  userId: string;
  scopes: string[];
  grant: Grant;
  /** Epoch ms; undefined for a token that never expires (token rotation off). */
  expiresAt: number | undefined;
  /** A long-lived token already traded for a rotating pair (oauth.v2.exchange). */
  exchanged?: boolean;
}

interface RefreshToken {
  kind: TokenKind;
  userId: string;
  scopes: string[];
  grant: Grant;
  used: boolean;
}

/** What a Web API call's token turned out to be. */
export type TokenCheck = { ok: true; token: AccessToken } | { ok: false; error: string };

const secret = (bytes = 24) => randomBytes(bytes).toString('hex');

/** The app's tokens, by value. */
export class TokenBook {
  readonly #access = new Map<string, AccessToken>();
  readonly #refresh = new Map<string, RefreshToken>();

  constructor(
    /** Token rotation: on, tokens expire and come with refresh tokens (it can be turned on later, as on Slack). */
    public rotation: boolean,
    readonly lifetimeSeconds: number,
    readonly now: () => number,
  ) {}

  /** Issues an access token (and, under rotation, its refresh token) for a grant. */
  issue(
    grant: Grant,
    kind: TokenKind,
    userId: string,
    scopes: string[],
  ): { accessToken: string; refreshToken?: string; expiresIn?: number } {
    // Slack's shapes: xoxb-/xoxp- for long-lived tokens, xoxe.xoxb-1-/xoxe.xoxp-1- for rotating ones.
    const prefix = kind === 'bot' ? 'xoxb' : 'xoxp';
    const accessToken = this.rotation
      ? `xoxe.${prefix}-1-${secret()}`
      : `${prefix}-${grant.teamId}-${userId}-${secret()}`;
    const expiresAt = this.rotation ? this.now() + this.lifetimeSeconds * 1000 : undefined;
    this.#access.set(accessToken, { kind, userId, scopes, grant, expiresAt });
    if (!this.rotation) return { accessToken };
    const refreshToken = `xoxe-1-${secret(32)}`;
    this.#refresh.set(refreshToken, { kind, userId, scopes, grant, used: false });
    return { accessToken, refreshToken, expiresIn: this.lifetimeSeconds };
  }

  /** A token as a Web API call presents it: unknown, revoked with its app, expired, or good. */
  check(value: string): TokenCheck {
    const token = this.#access.get(value);
    if (!token) return { ok: false, error: 'invalid_auth' };
    if (!token.grant.active) return { ok: false, error: 'token_revoked' };
    if (token.expiresAt !== undefined && this.now() >= token.expiresAt)
      return { ok: false, error: 'token_expired' };
    return { ok: true, token };
  }

  /** Seconds until a token expires (undefined when it never does). */
  expiresIn(token: AccessToken): number | undefined {
    return token.expiresAt === undefined
      ? undefined
      : Math.max(0, Math.floor((token.expiresAt - this.now()) / 1000));
  }

  /**
   * `grant_type=refresh_token`: a new access token and a new refresh token; the one presented is spent.
   * Slack answers `invalid_refresh_token` for one it doesn't know, one already used, and one whose app was
   * uninstalled. The previous access token stays good until it expires, as on Slack.
   */
  refresh(value: string):
    | {
        ok: true;
        kind: TokenKind;
        userId: string;
        scopes: string[];
        grant: Grant;
        issued: ReturnType<TokenBook['issue']>;
      }
    | { ok: false; error: string } {
    const token = this.#refresh.get(value);
    if (!token || token.used || !token.grant.active) return { ok: false, error: 'invalid_refresh_token' };
    token.used = true;
    const issued = this.issue(token.grant, token.kind, token.userId, token.scopes);
    return {
      ok: true,
      kind: token.kind,
      userId: token.userId,
      scopes: token.scopes,
      grant: token.grant,
      issued,
    };
  }

  /** `oauth.v2.exchange`: a long-lived token traded once for a rotating pair. */
  exchange(value: string): { ok: true; token: AccessToken } | { ok: false; error: string } {
    const token = this.#access.get(value);
    if (!token?.grant.active) return { ok: false, error: 'invalid_token' };
    if (token.exchanged || token.expiresAt !== undefined)
      return { ok: false, error: 'token_already_exchanged' };
    token.exchanged = true;
    return { ok: true, token };
  }
}
