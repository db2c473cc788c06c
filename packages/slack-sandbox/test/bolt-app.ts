import type { AddressInfo, Server } from 'node:net';
import { App, LogLevel } from '@slack/bolt';
import type { RunningSandbox, SlackDriver } from '../src/index.js';

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
