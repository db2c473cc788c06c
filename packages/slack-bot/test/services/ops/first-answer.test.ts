import { describe, expect, it, vi } from 'vitest';
import { patient } from '../../../../../test/support/patience.js';
import type { Logger } from '../../../src/logger.js';
import { untilFirstAnswer } from '../../../src/services/ops/first-answer.js';
import { Readiness } from '../../../src/services/ops/readiness.js';

/** A logger that keeps what it was told, level and message. */
function keptLog() {
  const lines: Array<{ level: string; msg: string; fields: Record<string, unknown> }> = [];
  const at = (level: string) => (fields: Record<string, unknown>, msg: string) => {
    lines.push({ level, msg, fields });
  };
  const logger = { info: at('info'), warn: at('warn'), error: at('error') };
  // The calls first-answer.ts makes (fields, then message); pino's overloads take more than this keeps.
  return { lines, logger: logger as unknown as Pick<Logger, 'info' | 'warn' | 'error'> };
}

describe('what needs a first answer, asked in the background', () => {
  it('keeps the replica starting until it comes; its failures are said once a minute, not at each attempt', async () => {
    const readiness = new Readiness();
    readiness.started();
    const { lines, logger } = keptLog();
    let clock = 0;
    let attempts = 0;
    // Each attempt takes 25 s of the clock; the seventh is answered.
    const ask = async () => {
      attempts += 1;
      clock += 25_000;
      if (attempts < 7) throw new Error('connect ECONNREFUSED 127.0.0.1:443');
      return { teamId: 'T0NORTH' };
    };
    expect(readiness.phase).toBe('ready');
    const asked = untilFirstAnswer({
      part: 'slack',
      waitingFor: 'auth.test not answered yet',
      ask,
      readiness,
      logger,
      delays: { firstMs: 1, maxMs: 2 },
      now: () => clock,
    });
    expect(readiness.phase).toBe('starting');
    expect(readiness.waiting).toEqual(['slack: auth.test not answered yet']);

    expect(await asked.answer).toEqual({ teamId: 'T0NORTH' });
    expect(readiness.phase).toBe('ready');
    expect(readiness.waiting).toEqual([]);
    // Six failures over 150 s of the clock: said at the first, and once more a minute later.
    const warned = lines.filter((line) => line.level === 'warn');
    expect(warned.map((line) => line.fields.attempts)).toEqual([1, 4]);
    expect(warned[0]?.msg).toBe(
      'slack: auth.test not answered yet; asking again in the background (logged once a minute)',
    );
    expect(lines.at(-1)).toMatchObject({ level: 'info', msg: 'slack answered', fields: { attempts: 7 } });
  });

  it('a refusal that asking again will not change is said in /readyz and logged as an error', async () => {
    const readiness = new Readiness();
    readiness.started();
    const { lines, logger } = keptLog();
    const ask = vi.fn(async () => {
      throw Object.assign(new Error('An API error occurred: invalid_auth'), {
        data: { error: 'invalid_auth' },
      });
    });
    untilFirstAnswer({
      part: 'slack',
      waitingFor: 'auth.test not answered yet',
      ask,
      readiness,
      logger,
      refusal: () => 'SLACK_BOT_TOKEN was refused (invalid_auth)',
    });
    await vi.waitFor(() => expect(lines.map((line) => line.level)).toEqual(['error']), {
      timeout: patient(10_000),
    });
    expect(readiness.waiting).toEqual(['slack: SLACK_BOT_TOKEN was refused (invalid_auth)']);
    expect(readiness.phase).toBe('starting');
    expect(ask).toHaveBeenCalledTimes(1);
  });

  it('a wait that does not gate is named but never holds the replica back', () => {
    const readiness = new Readiness();
    readiness.started();
    const service = readiness.waitFor('service', 'not answered yet', { gates: false });
    expect(readiness.phase).toBe('ready');
    expect(readiness.waiting).toEqual(['service: not answered yet (not waited for)']);
    service.done();
    expect(readiness.waiting).toEqual([]);
    readiness.drain();
    expect(readiness.phase).toBe('draining');
  });
});
