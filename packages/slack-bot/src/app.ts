import { App, type CustomRoute, LogLevel } from '@slack/bolt';
import { registerActions } from './listeners/actions/index.js';
import { registerCommands } from './listeners/commands/index.js';
import type { ListenerContext } from './listeners/context.js';
import { registerEvents } from './listeners/events/index.js';
import { registerViews } from './listeners/views/index.js';
import { boltLogger, type Logger } from './logger.js';

export interface SlackAppOptions {
  botToken: string;
  /** HTTP mode: requests to /slack/events are verified with it. */
  signingSecret: string;
  /** Socket Mode when set. */
  appToken?: string;
  /** The Web API base (the sandbox's, in development). */
  apiUrl?: string;
  /** Served beside /slack/events (health, metrics). */
  routes: CustomRoute[];
  /** Socket Mode only: the port of the small server for `routes`. */
  routesPort?: number;
  logger: Logger;
}

/** The Bolt app: receiver chosen by the tokens given, listeners wired as in Slack's starter templates. */
export function createSlackApp(options: SlackAppOptions): App {
  const app = new App({
    token: options.botToken,
    logger: boltLogger(options.logger),
    logLevel: LogLevel.INFO,
    customRoutes: options.routes,
    ...(options.appToken
      ? {
          socketMode: true,
          appToken: options.appToken,
          installerOptions: {
            port: options.routesPort ?? 3000,
            // The Socket Mode client opens its connection through the Web API too.
            ...(options.apiUrl ? { clientOptions: { slackApiUrl: ensureSlash(options.apiUrl) } } : {}),
          },
        }
      : { signingSecret: options.signingSecret }),
    ...(options.apiUrl ? { clientOptions: { slackApiUrl: ensureSlash(options.apiUrl) } } : {}),
  });
  app.error(async (error) => {
    options.logger.error({ err: error }, 'a Slack listener failed');
  });
  return app;
}

export function registerListeners(app: App, ctx: ListenerContext): void {
  registerCommands(app, ctx);
  registerActions(app, ctx);
  registerViews(app, ctx);
  registerEvents(app, ctx);
}

/** The Web API base as the Web API client wants it: with its trailing slash. */
export const ensureSlash = (url: string) => (url.endsWith('/') ? url : `${url}/`);
