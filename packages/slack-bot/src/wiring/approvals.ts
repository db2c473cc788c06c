/** The approvals' part of the wiring (start-bot.ts builds the rest): questions nobody answers. */
import { REDELIVER_AFTER_MS, ReminderService } from '../services/approvals/reminders.js';
import type { SessionWorkspaces } from '../services/installs/scope.js';
import type { KeyParts } from '../services/keys/index.js';
import type { AuditService } from '../services/ops/audit.js';
import type { BotMetrics } from '../services/ops/metrics.js';
import type { ActPolicy } from '../services/people/policy.js';
import type { SlackClient } from '../services/slack-out/outbound/index.js';
import type { Store } from '../store/index.js';
import type { People, Settings, SlackOut } from './types.js';

/** What the reminders are built from. */
export interface ReminderDeps {
  store: Store;
  keys: Pick<KeyParts, 'calls'>;
  slack: SlackClient;
  out: Pick<SlackOut, 'poster'>;
  people: Pick<People, 'notifier' | 'answering'>;
  policy: ActPolicy;
  audit: AuditService;
  metrics: BotMetrics;
  scopes: Pick<SessionWorkspaces, 'run'>;
  /** Who the bot is (it "answers" a question rejected on timeout), known once Slack said. */
  botUserId: () => string;
  /** SLACK_ALLOWED_TEAMS: only the sessions of admitted workspaces (undefined with one bot token). */
  serves: ((sessionId: string) => Promise<boolean>) | undefined;
}

/** Questions nobody answers: reminders, the starter's DM, escalation and the timeout. */
export function reminderService({ config, tuning, logger }: Settings, deps: ReminderDeps): ReminderService {
  const { store, slack, out, people, policy, audit, botUserId, scopes, metrics, serves } = deps;
  const client = deps.keys.calls;
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
    ...(serves ? { serves } : {}),
    // A dead replica's claimed steps are taken over as its sessions are: once a lease time has passed
    // (LEASE_TTL_SECONDS), and never later than REDELIVER_AFTER_MS.
    redeliverAfterMs: Math.min(REDELIVER_AFTER_MS, config.leaseTtlMs),
    ...tuning.reminders,
  });
}
