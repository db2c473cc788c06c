/** The approvals' part of the wiring (start-bot.ts builds the rest): questions nobody answers. */
import { ReminderService } from '../services/approvals/reminders.js';
import type { Parts, Settings } from './types.js';

/** Questions nobody answers: reminders, the starter's DM, escalation and the timeout. */
export function reminderService(
  { config, tuning, logger }: Settings,
  parts: Pick<
    Parts,
    'store' | 'keys' | 'slack' | 'out' | 'people' | 'policy' | 'audit' | 'botUserId' | 'scopes' | 'metrics'
  > & { serves?: (sessionId: string) => Promise<boolean> },
): ReminderService {
  const { store, slack, out, people, policy, audit, botUserId, scopes, metrics } = parts;
  const client = parts.keys.calls;
  return new ReminderService({
    reminders: store.reminders,
    prompts: store.prompts,
    slack,
    poster: out.poster,
    notifier: people.notifier,
    policy,
    answering: people.answering,
    client,
    audit,
    metrics,
    settings: config.approvals,
    logger: logger.child({ component: 'reminders' }),
    botUserId,
    inSession: (sessionId, fn) => scopes.run(sessionId, fn),
    ...(parts.serves ? { serves: parts.serves } : {}),
    ...tuning.reminders,
  });
}
