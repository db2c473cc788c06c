import type { RequestListener } from 'node:http';
import { App, type Authorize, type CustomRoute, HTTPReceiver, LogLevel } from '@slack/bolt';
import type { FetchFunction } from '@slack/web-api';
import { BODY_LIMIT_BYTES, refuseLargeBodies } from './http/body-limit.js';
import { registerActions } from './listeners/actions/index.js';
import { registerCommands } from './listeners/commands/index.js';
import type { ListenerContext } from './listeners/context.js';
import { registerEvents } from './listeners/events/index.js';
import { registerFunctions } from './listeners/functions/index.js';
import { registerViews } from './listeners/views/index.js';
import { boltLogger, type Logger } from './logger.js';

export interface SlackAppOptions {
  /** One workspace's token; without it, `authorize` finds each request's workspace's (OAuth installs). */
  botToken?: string;
  authorize?: Authorize<boolean>;
  /** HTTP mode: requests to /slack/events are verified with it. */
  signingSecret: string;
  /** Socket Mode when set. */
  appToken?: string;
  /** The Web API base (the sandbox's, in development). */
  apiUrl?: string;
  /** HTTP mode: served beside /slack/events (health, metrics, audit); Socket Mode: see serveRoutes. */
  routes: CustomRoute[];
  logger: Logger;
  /** HTTP mode: each Slack request's time from arrival to the bot's answer (its ack), in seconds. */
  onAnswered?: (seconds: number) => void;
  /** HTTP mode: true once the replica is going away; its answers then close their connections. */
  closing?: () => boolean;
  /** The Web API client's fetch (traces: a span per Slack call). */
  fetch?: FetchFunction;
}

/** The Bolt app: receiver chosen by the tokens given, listeners wired as in Slack's starter templates. */
export function createSlackApp(options: SlackAppOptions): App {
  const logger = boltLogger(options.logger);
  const webApi = {
    ...(options.apiUrl ? { slackApiUrl: ensureSlash(options.apiUrl) } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  };
  const clientOptions = Object.keys(webApi).length > 0 ? { clientOptions: webApi } : {};
  const app = new App({
    ...(options.botToken
      ? { token: options.botToken }
      : options.authorize
        ? { authorize: options.authorize }
        : {}),
    logger,
    logLevel: LogLevel.INFO,
    ...(options.appToken
      ? {
          socketMode: true,
          appToken: options.appToken,
          // The Socket Mode client opens its connection through the Web API too.
          installerOptions: clientOptions,
        }
      : { receiver: httpReceiver(options, logger) }),
    ...clientOptions,
  });
  app.error(async (error) => {
    options.logger.error({ err: error }, 'a Slack listener failed');
  });
  return app;
}

/**
 * Bolt's HTTP receiver with a body limit: raw-body stops reading /slack/events past it (413, before the
 * signature is checked), and a body announced over it is refused before routing, on every path. While
 * the replica goes away, each answer closes its connection: the listener is closed already, so a load
 * balancer's next request opens a connection to another replica instead of reusing one to this.
 */
function httpReceiver(
  {
    signingSecret,
    routes,
    closing,
    onAnswered,
  }: Pick<SlackAppOptions, 'signingSecret' | 'routes' | 'closing' | 'onAnswered'>,
  logger: ReturnType<typeof boltLogger>,
) {
  // An empty secret would verify requests signed with the empty string.
  if (signingSecret === '') throw new Error('HTTP mode needs a signing secret');
  const receiver = new HTTPReceiver({
    signingSecret,
    customRoutes: routes,
    logger,
    bodyLimit: BODY_LIMIT_BYTES,
  });
  const listener = refuseLargeBodies(timeAnswers(receiver.requestListener, onAnswered));
  receiver.requestListener = (req, res) => {
    if (closing?.()) res.setHeader('connection', 'close');
    listener(req, res);
  };
  return receiver;
}

export function registerListeners(app: App, ctx: ListenerContext): void {
  registerCommands(app, ctx);
  registerActions(app, ctx);
  registerViews(app, ctx);
  registerEvents(app, ctx);
  registerFunctions(app, ctx);
}

/** Times each POST to /slack/events from its arrival to the last byte of the answer: the ack Slack sees. */
function timeAnswers(listener: RequestListener, onAnswered?: (seconds: number) => void): RequestListener {
  if (!onAnswered) return listener;
  return (req, res) => {
    if (req.method === 'POST' && req.url?.startsWith('/slack/events')) {
      const arrived = process.hrtime.bigint();
      res.once('finish', () => onAnswered(Number(process.hrtime.bigint() - arrived) / 1e9));
    }
    return listener(req, res);
  };
}

/** The Web API base as the Web API client wants it: with its trailing slash. */
export const ensureSlash = (url: string) => (url.endsWith('/') ? url : `${url}/`);
