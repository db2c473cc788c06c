/**
 * What a test (or `npm start`) holds to play the OAuth side of Slack: the app's credentials, installing
 * it the way a browser does (the bot's install URL → the "Add to Slack" page → Allow → the bot's redirect
 * URL), and uninstalling it from a workspace with the events Slack sends then.
 */

import type { Delivery, SlackDriver } from '../driver.js';
import type { OAuthApp, TokenEndpointCounts } from './app.js';
import type { Grant } from './tokens.js';

export interface AuthorizeInput {
  /** Which workspace the person installs into (default: the one the URL names, else the first). */
  team?: string;
  /** Who clicks (default: the workspace's first person). */
  user?: string;
  /** Cancel instead of Allow: the redirect carries `error=access_denied`. */
  cancel?: boolean;
}

export interface AuthorizeResult {
  /** Where the sandbox sends the browser: the redirect_uri with `code` and `state`, or `error`. */
  location: string;
  code?: string;
  state?: string;
  error?: string;
}

export interface InstallResult extends AuthorizeResult {
  /** The bot's answer at its redirect URL (its "installed" page, or why not). */
  status: number;
  body: string;
  /** Where the bot's answer redirects the browser next, if it does. */
  next?: string;
}

export interface UninstallResult {
  /** User ids whose tokens were revoked, as the `tokens_revoked` event lists them. */
  revoked: { bot: string[]; oauth: string[] };
  /** The deliveries of `tokens_revoked` and `app_uninstalled` (none when no bot is reachable). */
  events: Array<{ type: string; eventId: string; deliveries: Delivery[] }>;
}

export interface InstallationInfo {
  teamId: string;
  enterpriseId: string | null;
  isEnterpriseInstall: boolean;
  installerUserId: string;
  botUserId: string;
  botScopes: string[];
  userScopes: string[];
  installedAt: string;
}

/** Cookies as a browser keeps them for one site: name=value, sent back on the next request. */
class CookieJar {
  readonly #cookies = new Map<string, Map<string, string>>();
  take(url: string, response: Response): void {
    const origin = new URL(url).origin;
    const jar = this.#cookies.get(origin) ?? new Map<string, string>();
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair?.indexOf('=') ?? -1;
      if (!pair || eq < 1) continue;
      jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
    this.#cookies.set(origin, jar);
  }
  header(url: string): Record<string, string> {
    const jar = this.#cookies.get(new URL(url).origin);
    if (!jar || jar.size === 0) return {};
    return { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') };
  }
}

const unescapeHtml = (s: string) =>
  s
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');

export class SandboxOAuth {
  constructor(
    readonly app: OAuthApp,
    readonly baseUrl: () => string,
    readonly driverFor: (teamId: string, eventsUrl?: string) => SlackDriver | undefined,
  ) {}

  get clientId(): string {
    return this.app.clientId;
  }
  /** The app's client secret: for the bot's configuration only (never log it). */
  get clientSecret(): string {
    return this.app.clientSecret;
  }
  /** What InstallProvider's `authorizationUrl` must be. */
  get authorizeUrl(): string {
    return `${this.baseUrl()}/oauth/v2/authorize`;
  }
  get redirectUrls(): string[] {
    return [...this.app.redirectUrls];
  }
  /** Sets the app's Redirect URLs (OAuth & Permissions), e.g. once the bot's port is known. */
  setRedirectUrls(urls: string[]): void {
    for (const url of urls) {
      try {
        new URL(url);
      } catch {
        throw new Error(`redirectUrls: "${url}" is not an absolute URL`);
      }
    }
    this.app.redirectUrls = [...urls];
  }
  /** The bot's install page, where the sandbox page's "Add to Slack" goes (undefined until set). */
  get installUrl(): string | undefined {
    return this.app.installUrl;
  }
  setInstallUrl(url: string): void {
    try {
      new URL(url);
    } catch {
      throw new Error(`installUrl: "${url}" is not an absolute URL`);
    }
    this.app.installUrl = url;
  }
  /** What oauth.v2.access / .exchange did so far: installs, refreshes (and refused ones), exchanges. */
  get counts(): TokenEndpointCounts {
    return { ...this.app.counts };
  }
  get tokenRotation(): boolean {
    return this.app.tokens.rotation;
  }
  /** Turns token rotation on (as on Slack, there is no turning it off); earlier tokens go through oauth.v2.exchange. */
  enableTokenRotation(): void {
    this.app.tokens.rotation = true;
  }

  /**
   * A person opens an "Add to Slack" URL (`/oauth/v2/authorize?…`) and answers, over HTTP as a browser
   * does: the page, then the form. Throws with the page's message when the sandbox shows an error page.
   */
  async authorize(url: string, input: AuthorizeInput = {}): Promise<AuthorizeResult> {
    const page = await fetch(url);
    const html = await page.text();
    if (page.status !== 200) throw new Error(`authorize: ${page.status} ${problemOf(html)}`);
    const request = html.match(/name="request" value="([^"]+)"/)?.[1];
    if (!request) throw new Error('authorize: the page holds no request to answer');
    const options = [...html.matchAll(/<option value="([^"]+)"( selected)?/g)].map((m) => ({
      value: unescapeHtml(m[1] as string),
      selected: m[2] !== undefined,
    }));
    const matches = (value: string) => {
      const [team, user] = value.split('|');
      return (
        (input.team === undefined || team === input.team) && (input.user === undefined || user === input.user)
      );
    };
    const chosen =
      input.team !== undefined || input.user !== undefined
        ? options.find((o) => matches(o.value))
        : (options.find((o) => o.selected) ?? options[0]);
    if (!chosen) throw new Error(`authorize: no person ${input.user ?? ''} in workspace ${input.team ?? ''}`);
    const own = new URL(url).origin;
    const answer = await fetch(`${own}/oauth/v2/authorize`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: own },
      body: new URLSearchParams({ request, as: chosen.value, decision: input.cancel ? 'cancel' : 'allow' }),
    });
    const location = answer.headers.get('location');
    if (answer.status !== 302 || !location)
      throw new Error(`authorize: ${answer.status} ${problemOf(await answer.text())}`);
    const params = new URL(location).searchParams;
    return {
      location,
      ...(params.get('code') ? { code: params.get('code') as string } : {}),
      ...(params.get('state') ? { state: params.get('state') as string } : {}),
      ...(params.get('error') ? { error: params.get('error') as string } : {}),
    };
  }

  /**
   * Installs the app as a person does in a browser: opens the bot's install URL (keeping its cookies, e.g.
   * InstallProvider's state cookie), follows it to the "Add to Slack" page — a redirect, or the link on the
   * bot's own page — answers there, and follows the redirect back to the bot's redirect URL.
   */
  async install(installUrl: string, input: AuthorizeInput = {}): Promise<InstallResult> {
    const jar = new CookieJar();
    const start = await fetch(installUrl, { redirect: 'manual' });
    jar.take(installUrl, start);
    const startBody = await start.text();
    const authorizePath = `${new URL(this.authorizeUrl).origin}/oauth/v2/authorize`;
    let authorizeUrl = start.headers.get('location') ?? undefined;
    if (!authorizeUrl) {
      const href = startBody.match(/href="([^"]*\/oauth\/v2\/authorize[^"]*)"/)?.[1];
      authorizeUrl = href ? unescapeHtml(href) : undefined;
    }
    if (!authorizeUrl?.startsWith(authorizePath))
      throw new Error(`install: ${installUrl} answered ${start.status} with no way to ${authorizePath}`);
    const authorized = await this.authorize(authorizeUrl, input);
    const back = await fetch(authorized.location, {
      redirect: 'manual',
      headers: jar.header(authorized.location),
    });
    const next = back.headers.get('location');
    return { ...authorized, status: back.status, body: await back.text(), ...(next ? { next } : {}) };
  }

  /** The workspace's installation while the app is installed there. */
  installation(teamId: string): InstallationInfo | undefined {
    const grant = this.app.installation(teamId);
    return grant && info(grant);
  }

  installations(): InstallationInfo[] {
    return [...this.app.grants.values()].filter((g) => g.active).map(info);
  }

  /**
   * The app is removed from a workspace (by an admin, or the page's Uninstall): its tokens are revoked at
   * once, and the bot gets `tokens_revoked` and `app_uninstalled` at `eventsUrl` (default: the bot the
   * page is connected to). Other workspaces keep theirs.
   */
  async uninstall(teamId: string, options: { eventsUrl?: string } = {}): Promise<UninstallResult> {
    const revoked = this.app.uninstall(teamId);
    if (!revoked) throw new Error(`uninstall: the app is not installed in ${teamId}`);
    const driver = this.driverFor(teamId, options.eventsUrl);
    const events: UninstallResult['events'] = [];
    if (driver) {
      const tokens = { ...(revoked.oauth.length > 0 ? { oauth: revoked.oauth } : {}), bot: revoked.bot };
      events.push({
        type: 'tokens_revoked',
        ...(await driver.deliverEvent({ type: 'tokens_revoked', tokens })),
      });
      events.push({ type: 'app_uninstalled', ...(await driver.deliverEvent({ type: 'app_uninstalled' })) });
    }
    return { revoked, events };
  }
}

function info(grant: Grant): InstallationInfo {
  return {
    teamId: grant.teamId,
    enterpriseId: grant.enterpriseId ?? null,
    isEnterpriseInstall: grant.isEnterpriseInstall,
    installerUserId: grant.installerUserId,
    botUserId: grant.botUserId,
    botScopes: [...grant.botScopes],
    userScopes: [...grant.userScopes],
    installedAt: new Date(grant.installedAt).toISOString(),
  };
}

const problemOf = (html: string) =>
  unescapeHtml(html.match(/data-testid="oauth-problem">([^<]*)</)?.[1] ?? html.slice(0, 200));
