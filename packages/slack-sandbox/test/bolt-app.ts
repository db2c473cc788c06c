import type { AddressInfo, Server } from 'node:net';
import { App, LogLevel } from '@slack/bolt';
import { afterAll, beforeAll } from 'vitest';
import { type RunningSandbox, type SlackDriver, startSandbox } from '../src/index.js';

/** A real Bolt app as the sandbox's bot (U0AGENTBOT), its Web API calls going to the sandbox. */
export function boltApp(sandbox: RunningSandbox): App {
  return new App({
    token: sandbox.botToken,
    signingSecret: sandbox.signingSecret,
    tokenVerificationEnabled: false,
    botId: 'B0AGENTS',
    botUserId: 'U0AGENTBOT',
    logLevel: LogLevel.ERROR,
    clientOptions: { slackApiUrl: sandbox.apiUrl, retryConfig: { retries: 0 } },
  });
}

/** Starts the app's HTTP receiver on a free port; a driver that sends to its events endpoint. */
export async function driveBolt(sandbox: RunningSandbox, app: App): Promise<SlackDriver> {
  const server = (await app.start(0)) as Server;
  return sandbox.driver(`http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`);
}

/** What a suite driving a Bolt app through the sandbox holds; set once beforeAll ran. */
export interface BoltInSandbox {
  sandbox: RunningSandbox;
  app: App;
  driver: SlackDriver;
  /** What the app's listeners recorded, in order. */
  received: Array<Record<string, unknown>>;
}

/**
 * The suite's set-up, registered as its beforeAll/afterAll: a sandbox (rate limits off), a Bolt app as its
 * bot with the suite's listeners (`listen`, which records into `received`) and a driver to its events
 * endpoint; the app and the sandbox closed after the suite.
 */
export function boltInSandbox(
  listen: (app: App, received: BoltInSandbox['received']) => void,
): BoltInSandbox {
  const live = { received: [] } as Partial<BoltInSandbox> & Pick<BoltInSandbox, 'received'>;
  beforeAll(async () => {
    const sandbox = await startSandbox({ rateLimits: false });
    const app = boltApp(sandbox);
    Object.assign(live, { sandbox, app });
    listen(app, live.received);
    live.driver = await driveBolt(sandbox, app);
  });
  afterAll(async () => {
    await live.app?.stop();
    await live.sandbox?.close();
  });
  return live as BoltInSandbox;
}
