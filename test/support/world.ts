import { type RunningSandbox, type SandboxOptions, startSandbox } from '@agent-sessions/slack-sandbox';
import { webApi } from '@slack/bolt';
import { afterAll, beforeAll, beforeEach } from 'vitest';

/** The Slack sandbox of a test file, and a Web API client with its bot's token. */
export interface SandboxWorld {
  sandbox: RunningSandbox;
  slack: webApi.WebClient;
}

/**
 * How the test's client meets Slack's errors, by what the code under test expects of the client it is given.
 * - `ANSWERS_AT_ONCE` (the default): a 429 is thrown rather than waited out and nothing is retried, so what
 *   the test sees is what the code under test did with Slack's answer (its own pacing, its own retries), as
 *   the outbound queue's paced client does.
 * - `NO_RETRIES`: a failed call is not retried, a 429 is waited out as Bolt's client does: code that reads
 *   Slack (members, user groups) on Bolt's client, where a retry would hide a call the test counts.
 * - `BOLT_DEFAULTS`: Bolt's client as it comes (a 429 waited out, a failed call retried): code handed
 *   `app.client` itself, as the unpaced bot is.
 */
export const ANSWERS_AT_ONCE: webApi.WebClientOptions = {
  rejectRateLimitedCalls: true,
  retryConfig: { retries: 0 },
};
export const NO_RETRIES: webApi.WebClientOptions = { retryConfig: { retries: 0 } };
export const BOLT_DEFAULTS: webApi.WebClientOptions = {};

/** A Web API client of a sandbox with its bot's token (a second sandbox a test starts on its own). */
export function sandboxWebClient(
  sandbox: RunningSandbox,
  client: webApi.WebClientOptions = ANSWERS_AT_ONCE,
): webApi.WebClient {
  return new webApi.WebClient(sandbox.botToken, { ...client, slackApiUrl: sandbox.apiUrl });
}

/**
 * A Slack sandbox started once for the test file, or the `describe` it is called in (closed after it), and
 * a client of its Web API, `ANSWERS_AT_ONCE` unless told otherwise. Faults a test injected and left unused
 * are cleared before the next test. The fields are set once the `beforeAll` has run: read them inside
 * tests and hooks.
 */
export function useSandboxWithClient(
  options: SandboxOptions = {},
  client: webApi.WebClientOptions = ANSWERS_AT_ONCE,
): SandboxWorld {
  const world = {} as SandboxWorld;
  beforeAll(async () => {
    world.sandbox = await startSandbox(options);
    world.slack = sandboxWebClient(world.sandbox, client);
  });
  afterAll(async () => {
    await world.sandbox?.close();
  });
  beforeEach(() => {
    world.sandbox.faults.clear();
  });
  return world;
}
