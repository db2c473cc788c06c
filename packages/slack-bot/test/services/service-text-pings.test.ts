import { ServiceError, ValidationError } from '@agent-sessions/core';
import { describe, expect, it } from 'vitest';
import { describeServiceFailure } from '../../src/services/outcome.js';
import { SteeringService } from '../../src/services/people/steering.js';
import { unexpectedPings } from '../blocks/ping-check.js';
import { fakeWorld, session } from '../fakes.js';

// What the service says (errors, statuses) and what a person typed reach Slack as mrkdwn in
// replies and thread notes; none of it may ping. The builders are held by test/blocks/pings.test.ts.
const PINGS = '<!channel> <!here|x> <!subteam^S1> <@U1> @everyone';

const serviceError = (message: string) =>
  new ServiceError({
    status: 500,
    message,
    body: { error: message },
    headers: {},
    method: 'POST',
    path: '/v1/x',
  });

describe('service-provided text in the bot’s replies pings nobody', () => {
  it('describeServiceFailure escapes the service’s error, a validation issue and a network error', () => {
    for (const error of [
      serviceError(PINGS),
      new ValidationError('create', [{ field: PINGS, message: PINGS }]),
      new Error(PINGS),
    ]) {
      const said = describeServiceFailure(error);
      expect(said).toContain('&lt;!channel&gt;');
      expect(unexpectedPings({ text: said })).toEqual([]);
    }
  });

  it('a failed signal and an unknown session id say so without pinging', async () => {
    const world = fakeWorld();
    const steering = new SteeringService({
      client: world.service,
      sessions: world.sessions,
      policy: world.policy,
      visibility: world.visibility,
      notifier: world.notifier,
      metrics: world.metrics,
      snapshot: () => undefined,
    });
    world.sessions.add(session());
    world.service.signalError = serviceError(PINGS);
    const failed = await steering.signal('sess_1', 'U0ALICE', 'pause');
    expect(failed.ok).toBe(false);
    expect(unexpectedPings(failed)).toEqual([]);
    const unknown = await steering.signal(PINGS, 'U0ALICE', 'pause');
    expect(unknown).toMatchObject({ ok: false, message: expect.stringContaining('There is no session') });
    expect(unexpectedPings(unknown)).toEqual([]);
    expect(unexpectedPings(['chat.postMessage', 'chat.postEphemeral'].map((m) => world.slack.of(m)))).toEqual(
      [],
    );
  });
});
