import { describe, expect, it } from 'vitest';
import { FeedbackService } from '../../../src/services/people/feedback.js';
import type { FeedbackValue } from '../../../src/store/feedback.js';
import { logger, metrics, session } from '../../fakes.js';

function world() {
  const recorded: Array<[string, string, FeedbackValue]> = [];
  const m = metrics();
  const service = new FeedbackService({
    sessions: {
      findByThread: async (channelId, ts) =>
        channelId === 'C0AGENTS' && ts === '1700000000.000100' ? session() : undefined,
    },
    feedback: { record: async (...args) => void recorded.push(args) },
    metrics: m,
    logger,
  });
  return { service, recorded, metrics: m };
}

const press = (value: string | undefined, threadTs = '1700000000.000100') => ({
  channelId: 'C0AGENTS',
  threadTs,
  userId: 'U0BOB',
  value,
});

describe('FeedbackService', () => {
  it('records a press against the thread’s session, counts it, and thanks the person', async () => {
    const w = world();
    expect(await w.service.record(press('good'))).toEqual({ ok: true, message: 'Thanks — noted 👍' });
    expect(await w.service.record(press('bad'))).toMatchObject({ ok: true, message: /noted 👎/ });
    expect(w.recorded).toEqual([
      ['sess_1', 'U0BOB', 'good'],
      ['sess_1', 'U0BOB', 'bad'],
    ]);
    expect(await w.metrics.text()).toMatch(/agent_report_feedback_total\{value="good"\} 1/);
  });

  it('an unknown value or a thread with no session records nothing and says why', async () => {
    const w = world();
    expect(await w.service.record(press('meh'))).toEqual({ ok: false, message: 'Unknown feedback "meh".' });
    expect(await w.service.record(press('good', '9.9'))).toMatchObject({ ok: false, message: /not known/ });
    expect(w.recorded).toEqual([]);
  });
});
