/**
 * The OAuth side of the sandbox over HTTP: Slack's "Add to Slack" page (`/oauth/v2/authorize`), and the
 * `/sandbox/oauth/*` and `/sandbox/workspaces` routes the page and other processes use to install,
 * uninstall and look (JSON only, like every `/sandbox/*` action). No route ever answers a secret.
 */

import type { Context, Hono } from 'hono';
import { setCookie } from 'hono/cookie';
import { type Body, jsonRoute } from '../web/json-route.js';
import { authorizePage, problemPage } from './page.js';
import type { SandboxOAuth } from './sandbox-oauth.js';
import type { Tenant, Tenants } from './tenants.js';

export interface OAuthRoutesContext {
  oauth: SandboxOAuth | undefined;
  tenants: Tenants;
  appName: string;
  /** The workspace the page shows for the request being answered. */
  shown: () => Tenant;
}

const optional = (v: unknown, name: string): string | undefined => {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') throw new Error(`${name} must be a string`);
  return v;
};

const noApp = 'This sandbox runs no OAuth app: start it with the oauth option (or SANDBOX_OAUTH=on).';

export function addOAuthRoutes(app: Hono, ctx: OAuthRoutesContext): void {
  addAuthorizePage(app, ctx);
  addOAuthControls(app, ctx);
  addWorkspaceChoice(app, ctx);
}

/** Slack's "Add to Slack" page: the request checked and shown, then the person's decision. */
function addAuthorizePage(app: Hono, ctx: OAuthRoutesContext): void {
  app.get('/oauth/v2/authorize', (c) => {
    if (!ctx.oauth) return c.html(problemPage(noApp), 404);
    const checked = ctx.oauth.app.request(new URL(c.req.url).searchParams);
    if (!checked.ok) return c.html(problemPage(checked.problem), 400);
    const workspaces = ctx.tenants.all.map((t) => t.workspace);
    return c.html(authorizePage({ appName: ctx.appName, pending: checked.pending, workspaces }));
  });

  app.post('/oauth/v2/authorize', async (c) => {
    if (!ctx.oauth) return c.html(problemPage(noApp), 404);
    const form = await c.req.parseBody();
    const field = (name: string) => (typeof form[name] === 'string' ? (form[name] as string) : '');
    const [teamFromAs, userFromAs] = field('as').split('|');
    const decided = ctx.oauth.app.decide({
      request: field('request'),
      team: field('team') || teamFromAs || '',
      user: field('user') || userFromAs || '',
      allow: field('decision') === 'allow',
    });
    if (!decided.ok) return c.html(problemPage(decided.problem), 400);
    return c.redirect(decided.location, 302);
  });
}

/** The sandbox's OAuth app as JSON: what it is, its settings, and installing or removing it. */
function addOAuthControls(app: Hono, ctx: OAuthRoutesContext): void {
  const route =
    (run: (body: Body, oauth: SandboxOAuth) => Promise<unknown> | unknown) => async (c: Context) => {
      const { oauth } = ctx;
      if (!oauth) return c.json({ ok: false, error: noApp }, 404);
      return jsonRoute((body) => run(body, oauth))(c);
    };

  app.get('/sandbox/oauth', (c) => {
    const { oauth } = ctx;
    if (!oauth) return c.json({ enabled: false });
    return c.json({
      enabled: true,
      clientId: oauth.clientId,
      authorizeUrl: oauth.authorizeUrl,
      redirectUrls: oauth.redirectUrls,
      installUrl: oauth.installUrl ?? null,
      tokenRotation: oauth.tokenRotation,
      counts: oauth.counts,
      installations: oauth.installations(),
    });
  });
  app.post(
    '/sandbox/oauth/redirect-urls',
    route((b, oauth) => {
      if (!Array.isArray(b.urls) || b.urls.some((u) => typeof u !== 'string'))
        throw new Error('urls must be an array of absolute URLs');
      oauth.setRedirectUrls(b.urls as string[]);
      return oauth.redirectUrls;
    }),
  );
  app.post(
    '/sandbox/oauth/install-url',
    route((b, oauth) => {
      const url = optional(b.url, 'url');
      if (!url) throw new Error('url is required: the bot’s install page (e.g. …/slack/install)');
      oauth.setInstallUrl(url);
      return oauth.installUrl;
    }),
  );
  app.post(
    '/sandbox/oauth/install',
    route((b, oauth) => {
      const installUrl = optional(b.installUrl, 'installUrl');
      if (!installUrl)
        throw new Error('installUrl is required: the bot’s install page (e.g. …/slack/install)');
      const team = optional(b.team, 'team');
      const user = optional(b.user, 'user');
      return oauth.install(installUrl, {
        ...(team ? { team } : {}),
        ...(user ? { user } : {}),
        ...(b.cancel === true ? { cancel: true } : {}),
      });
    }),
  );
  app.post(
    '/sandbox/oauth/uninstall',
    route((b, oauth) => {
      const team = optional(b.team, 'team');
      if (!team) throw new Error('team is required: the workspace to remove the app from');
      const eventsUrl = optional(b.eventsUrl, 'eventsUrl');
      return oauth.uninstall(team, eventsUrl ? { eventsUrl } : {});
    }),
  );
}

/** The workspaces, and the one the page shows. */
function addWorkspaceChoice(app: Hono, ctx: OAuthRoutesContext): void {
  // The page's choice of workspace, kept as a cookie: every /sandbox/* route answers for that workspace.
  app.post('/sandbox/workspace', async (c) => {
    const body = (await c.req.json().catch(() => ({}))) as Body;
    const tenant = typeof body.team === 'string' ? ctx.tenants.get(body.team) : undefined;
    if (!tenant) return c.json({ ok: false, error: `team: no workspace ${String(body.team ?? '')}` }, 400);
    setCookie(c, 'sandbox_team', tenant.workspace.seed.teamId, {
      path: '/',
      sameSite: 'Strict',
      httpOnly: true,
    });
    return c.json({ ok: true, result: { team: tenant.workspace.seed.teamId } });
  });
  app.get('/sandbox/workspaces', (c) =>
    c.json({
      oauth: ctx.oauth !== undefined,
      shown: ctx.shown().workspace.seed.teamId,
      ...(ctx.oauth?.installUrl ? { installUrl: ctx.oauth.installUrl } : {}),
      workspaces: ctx.tenants.describe().map((w) => {
        // Without OAuth the default workspace has the app (its fixed bot token); the others don't.
        const installation = ctx.oauth?.installation(w.id);
        const installed = ctx.oauth
          ? installation !== undefined
          : w.id === ctx.tenants.primary.workspace.seed.teamId;
        // Which installation: the workspace's own, or its organization's org-wide one (uninstall that).
        return { ...w, installed, ...(installation ? { installedAs: installation.teamId } : {}) };
      }),
    }),
  );
}
