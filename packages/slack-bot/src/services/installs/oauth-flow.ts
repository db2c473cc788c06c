import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CustomRoute } from '@slack/bolt';
import {
  type CodedError,
  ErrorCode,
  type Installation,
  InstallProvider,
  type InstallURLOptions,
  InvalidStateError,
  type StateStore,
} from '@slack/oauth';
import { boltLogger, type Logger } from '../../logger.js';
import type { InstallationRepository } from '../../store/index.js';
import type { Admission, TeamList } from './admission.js';
import { type InstallOutcome, installPage, resultPage } from './pages.js';
import type { WorkspaceTokens } from './tokens.js';

/** The app's OAuth settings (SLACK_CLIENT_ID, SLACK_CLIENT_SECRET, SLACK_STATE_SECRET, …). */
export interface OAuthSettings {
  clientId: string;
  clientSecret: string;
  stateSecret: string;
  /** SLACK_ALLOWED_TEAMS: the workspaces that may install the app (and are served). */
  allowedTeams: TeamList;
  /** Bot scopes asked for at install. */
  scopes: string[];
  /** Where Slack sends the browser back (must be one of the app's redirect URLs); Slack's default when unset. */
  redirectUri?: string;
  /** Slack's authorize page (a local sandbox's in development). */
  authorizationUrl?: string;
  /** The Web API base for oauth.v2.access (a local sandbox's in development). */
  apiUrl?: string;
}

export const INSTALL_PATH = '/slack/install';
export const REDIRECT_PATH = '/slack/oauth_redirect';
const STATE_TTL_MS = 10 * 60_000;

/**
 * `state` values every replica can check, each good once: a random value signed with the state secret (a
 * forged one is refused before the store is asked), kept in the store until used or ten minutes old.
 * The installer also ties it to the browser that began the flow (a cookie), as @slack/oauth does.
 */
export function storedStates(installations: InstallationRepository, secret: string): StateStore {
  const sign = (value: string) => createHmac('sha256', secret).update(value).digest('base64url');
  return {
    async generateStateParam(options: InstallURLOptions, now: Date): Promise<string> {
      const value = randomBytes(24).toString('base64url');
      const state = `${value}.${sign(value)}`;
      await installations.saveState(state, options, new Date(now.getTime() + STATE_TTL_MS));
      return state;
    },
    async verifyStateParam(_now: Date, state: string): Promise<InstallURLOptions> {
      const [value = '', mac = ''] = state.split('.');
      const expected = Buffer.from(sign(value));
      const given = Buffer.from(mac);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        throw new InvalidStateError('The state parameter was not issued by this app.');
      }
      const options = await installations.takeState(state);
      if (!options) throw new InvalidStateError('The state parameter is unknown, used or expired.');
      return options;
    },
  };
}

/** The installer of @slack/oauth over the bot's store (installations and states shared by replicas). */
export function installProvider(deps: {
  settings: OAuthSettings;
  installations: InstallationRepository;
  tokens: WorkspaceTokens;
  logger: Logger;
}): InstallProvider {
  const { settings, installations, tokens, logger } = deps;
  return new InstallProvider({
    clientId: settings.clientId,
    clientSecret: settings.clientSecret,
    stateStore: storedStates(installations, settings.stateSecret),
    installationStore: {
      storeInstallation: async (installation) => {
        await installations.save(tokens.withLifetime(installation));
      },
      fetchInstallation: async (query) => {
        const found = await tokens.installation(query);
        if (!found) throw new Error('no installation for this workspace');
        return found;
      },
      deleteInstallation: async (query) => {
        const key = query.isEnterpriseInstall ? query.enterpriseId : (query.teamId ?? query.enterpriseId);
        if (key) await installations.remove(key);
      },
    },
    installUrlOptions: {
      scopes: settings.scopes,
      ...(settings.redirectUri ? { redirectUri: settings.redirectUri } : {}),
    },
    renderHtmlForInstallPath: installPage,
    ...(settings.authorizationUrl ? { authorizationUrl: settings.authorizationUrl } : {}),
    ...(settings.apiUrl ? { clientOptions: { slackApiUrl: settings.apiUrl } } : {}),
    logger: boltLogger(logger.child({ component: 'oauth' })),
  });
}

/** Why an install failed, in words for the person in the browser: no codes from Slack, no secrets. */
function failureReason(error: CodedError): string {
  switch (error.code) {
    case ErrorCode.InvalidStateError:
    case ErrorCode.MissingStateError:
      return 'This install link has expired or was opened in another browser. Start again from the install page.';
    case ErrorCode.MissingCodeError:
      return 'Slack did not send an authorization code back. Start again from the install page.';
    default:
      return 'Slack did not complete the installation. Start again from the install page; if it fails again, ask the app’s operator to check its logs.';
  }
}

/** GET /slack/install and GET /slack/oauth_redirect, served beside /slack/events. */
export function oauthRoutes(deps: {
  installer: InstallProvider;
  /** SLACK_ALLOWED_TEAMS: an install from a workspace it doesn't admit is refused, and nothing stored. */
  admission: Admission;
  logger: Logger;
  onInstalled?: (installation: Installation) => void;
}): CustomRoute[] {
  const { installer, logger } = deps;
  const show = (res: ServerResponse, status: number, outcome: InstallOutcome) => {
    res.writeHead(status, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
    res.end(resultPage(outcome));
  };
  return [
    {
      path: INSTALL_PATH,
      method: ['GET'],
      handler: (req: IncomingMessage, res: ServerResponse) => {
        installer.handleInstallPath(req, res).catch((error: unknown) => {
          logger.error({ err: error }, 'the install page failed');
          if (!res.headersSent)
            show(res, 500, { kind: 'failed', reason: 'The install page could not be made.' });
        });
      },
    },
    {
      path: REDIRECT_PATH,
      method: ['GET'],
      handler: (req: IncomingMessage, res: ServerResponse) => {
        void installer.handleCallback(req, res, {
          // After Slack's answer names the workspace, before anything is stored: only admitted ones go on.
          afterInstallation: async (installation, _options, _req, response) => {
            const ids = installIds(installation);
            if (deps.admission.check(ids, 'an install')) return true;
            const orgWide = installation.isEnterpriseInstall === true;
            show(response, 403, {
              kind: 'refused',
              workspace: (orgWide ? ids.enterpriseId : ids.teamId) ?? '',
              name: orgWide ? installation.enterprise?.name : installation.team?.name,
            });
            return false;
          },
          success: (installation) => {
            const orgWide = installation.isEnterpriseInstall === true;
            const workspace = (orgWide ? installation.enterprise?.id : installation.team?.id) ?? '';
            logger.info({ workspace, orgWide }, 'the app was installed');
            deps.onInstalled?.(installation);
            show(res, 200, {
              kind: 'installed',
              workspace,
              name: orgWide ? installation.enterprise?.name : installation.team?.name,
              orgWide,
            });
          },
          failure: (error) => {
            if (error.code === ErrorCode.AuthorizationError) {
              logger.info('an install was cancelled in Slack');
              show(res, 200, { kind: 'cancelled' });
              return;
            }
            logger.warn({ code: error.code, message: error.message }, 'an install failed');
            show(res, 400, { kind: 'failed', reason: failureReason(error) });
          },
        });
      },
    },
  ];
}

/** The workspace an install is for, as Slack's answer names it. */
function installIds(installation: Installation): { teamId?: string; enterpriseId?: string } {
  return {
    ...(installation.team?.id ? { teamId: installation.team.id } : {}),
    ...(installation.enterprise?.id ? { enterpriseId: installation.enterprise.id } : {}),
  };
}
