import { ManualExecutionCancelledError } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';
import { sleepRacingAbort } from '../nodes/AgentSessions/transport/sleep';

// The wait's sleep on n8n 2.41, whose n8n-workflow has no `sleepWithAbort`: n8n's `sleep` raced against
// the execution's cancel signal (real n8n 2.41.3 stops a waiting execution with it: test/real-n8n).
describe('sleepRacingAbort', () => {
  it('sleeps when nothing stops it', async () => {
    await expect(sleepRacingAbort(5, new AbortController().signal)).resolves.toBeUndefined();
    await expect(sleepRacingAbort(5)).resolves.toBeUndefined();
  });

  it('ends a long sleep as soon as the execution is stopped, as sleepWithAbort does', async () => {
    const stop = new AbortController();
    const sleeping = sleepRacingAbort(600_000, stop.signal);
    stop.abort();
    await expect(sleeping).rejects.toBeInstanceOf(ManualExecutionCancelledError);
  });

  it('does not sleep at all once stopped', async () => {
    const stop = new AbortController();
    stop.abort();
    await expect(sleepRacingAbort(600_000, stop.signal)).rejects.toBeInstanceOf(ManualExecutionCancelledError);
  });
});
