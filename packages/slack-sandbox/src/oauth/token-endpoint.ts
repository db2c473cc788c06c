/**
 * `oauth.v2.access` and `oauth.v2.exchange` as Slack answers them: the app authenticates with its client
 * id and secret (HTTP Basic or form fields), trades a code for the installation's tokens, rotates them with
 * `grant_type=refresh_token`, or trades a long-lived token for a rotating pair.
 */

import { timingSafeEqual } from 'node:crypto';
import type { OAuthApp } from './app.js';
import type { Grant } from './tokens.js';

type Answer = Record<string, unknown>;
const fail = (error: string): Answer => ({ ok: false, error });

const sameSecret = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

export class TokenEndpoint {
  constructor(readonly app: OAuthApp) {}

  /** Client authentication as Slack takes it: HTTP Basic, or client_id / client_secret fields. */
  #client(args: Answer, authorization: string | undefined): Answer | undefined {
    let id = typeof args.client_id === 'string' ? args.client_id : undefined;
    let secretGiven = typeof args.client_secret === 'string' ? args.client_secret : undefined;
    const basic = authorization?.match(/^Basic\s+(.+)$/i)?.[1];
    if (basic) {
      const decoded = Buffer.from(basic, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      id = colon < 0 ? decoded : decoded.slice(0, colon);
      secretGiven = colon < 0 ? '' : decoded.slice(colon + 1);
    }
    if (!id || id !== this.app.clientId) return fail('invalid_client_id');
    if (!secretGiven || !sameSecret(secretGiven, this.app.clientSecret)) return fail('bad_client_secret');
    return undefined;
  }

  /** `oauth.v2.access`: a code for the installation's tokens, or (grant_type=refresh_token) a rotation. */
  access(args: Answer, authorization: string | undefined): Answer {
    const refused = this.#client(args, authorization);
    if (refused) return refused;
    const grantType = args.grant_type ?? 'authorization_code';
    if (grantType === 'refresh_token') return this.#refresh(args);
    if (grantType !== 'authorization_code') return fail('invalid_grant_type');
    const redeemed = this.app.redeem(
      typeof args.code === 'string' ? args.code : '',
      typeof args.redirect_uri === 'string' ? args.redirect_uri : undefined,
    );
    if (!redeemed.ok) return fail(redeemed.error);
    return this.#install(redeemed.grant);
  }

  /** The code is good: the app is installed (again) in the workspace, and its tokens are issued. */
  #install(grant: Grant): Answer {
    this.app.activate(grant);
    this.app.counts.installs++;
    const { tokens } = this.app;
    const authedUser: Answer = { id: grant.installerUserId };
    if (grant.userScopes.length > 0) {
      const user = tokens.issue(grant, 'user', grant.installerUserId, grant.userScopes);
      Object.assign(authedUser, {
        scope: grant.userScopes.join(','),
        access_token: user.accessToken,
        token_type: 'user',
        ...(user.refreshToken ? { refresh_token: user.refreshToken, expires_in: user.expiresIn } : {}),
      });
    }
    const answer: Answer = { ok: true, app_id: this.app.appId, authed_user: authedUser };
    if (grant.botScopes.length > 0) {
      const bot = tokens.issue(grant, 'bot', grant.botUserId, grant.botScopes);
      Object.assign(answer, {
        access_token: bot.accessToken,
        token_type: 'bot',
        scope: grant.botScopes.join(','),
        bot_user_id: grant.botUserId,
        ...(bot.refreshToken ? { refresh_token: bot.refreshToken, expires_in: bot.expiresIn } : {}),
      });
    }
    return { ...answer, ...this.#where(grant) };
  }

  /** The installation's place: its team (none for an org-wide install), its organization, and which. */
  #where(grant: Grant): Answer {
    const seed = (this.app.workspace(grant.teamId) ?? this.app.organization(grant.teamId)[0])?.seed;
    return {
      team: grant.isEnterpriseInstall ? null : { id: grant.teamId, name: seed?.teamName ?? seed?.teamDomain },
      enterprise: seed?.enterprise ? { ...seed.enterprise } : null,
      is_enterprise_install: grant.isEnterpriseInstall,
    };
  }

  /** A fresh pair, in the shape Slack answers a refresh or an exchange. */
  #pair(
    grant: Grant,
    kind: 'bot' | 'user',
    userId: string,
    scopes: string[],
    issued: { accessToken: string; refreshToken?: string; expiresIn?: number },
  ): Answer {
    return {
      ok: true,
      app_id: this.app.appId,
      scope: scopes.join(','),
      token_type: kind,
      access_token: issued.accessToken,
      refresh_token: issued.refreshToken,
      expires_in: issued.expiresIn,
      ...(kind === 'bot' ? { bot_user_id: userId } : { authed_user: { id: userId } }),
      ...this.#where(grant),
    };
  }

  #refresh(args: Answer): Answer {
    const result = this.app.tokens.refresh(typeof args.refresh_token === 'string' ? args.refresh_token : '');
    if (!result.ok) {
      this.app.counts.refreshesRefused++;
      return fail(result.error);
    }
    this.app.counts.refreshes++;
    return this.#pair(result.grant, result.kind, result.userId, result.scopes, result.issued);
  }

  /** `oauth.v2.exchange`: a long-lived token (from before rotation was turned on) for a rotating pair. */
  exchange(args: Answer, authorization: string | undefined): Answer {
    const refused = this.#client(args, authorization);
    if (refused) return refused;
    const { tokens } = this.app;
    if (!tokens.rotation) return fail('token_rotation_not_enabled');
    const result = tokens.exchange(typeof args.token === 'string' ? args.token : '');
    if (!result.ok) return fail(result.error);
    this.app.counts.exchanges++;
    const { grant, kind, userId, scopes } = result.token;
    return this.#pair(grant, kind, userId, scopes, tokens.issue(grant, kind, userId, scopes));
  }
}
