import { type RunningSandbox, type SandboxOptions, startSandbox } from '@agent-sessions/slack-sandbox';
import { webApi } from '@slack/bolt';
import { afterAll, beforeAll, beforeEach } from 'vitest';

/** The Slack sandbox of a test file, and a Web API client with its bot's token. */
export interface SandboxWorld {
  sandbox: RunningSandbox;
  slack: webApi.WebClient;
}

/**
 * A Slack sandbox started once for the test file (closed after it), and a client of its Web API that
 * answers every error at once: a 429 is thrown rather than waited out, and nothing is retried, so what the
 * test sees is what the code under test did with Slack's answer (its own pacing, its own retries). Faults a
 * test injected and left unused are cleared before the next test. The fields are set once the file's
 * `beforeAll` has run: read them inside tests and hooks.
 */
export function useSandboxWithClient(options: SandboxOptions = {}): SandboxWorld {
  const world = {} as SandboxWorld;
  beforeAll(async () => {
    world.sandbox = await startSandbox(options);
    world.slack = new webApi.WebClient(world.sandbox.botToken, {
      slackApiUrl: world.sandbox.apiUrl,
      rejectRateLimitedCalls: true,
      retryConfig: { retries: 0 },
    });
  });
  afterAll(async () => {
    await world.sandbox?.close();
  });
  beforeEach(() => {
    world.sandbox.faults.clear();
  });
  return world;
}
