/** Approvals: who may decide, reminders and escalation, question timeouts, the budget cap, the audit record. */
import { z } from 'zod';
import type { ReminderSettings } from '../services/approvals/reminders.js';
import {
  blankAsUnset,
  duration,
  entryList,
  type Problem,
  placesNameTheirWorkspace,
  wholeNumber,
} from './fields.js';

export const approvalsSchema = z.object({
  // Each entry may be limited to a workspace: T0NORTH:U123 (services/people/workspace-entries.ts).
  AGENT_APPROVERS: entryList(
    'AGENT_APPROVERS',
    /^[UWS][A-Z0-9]+$/,
    'takes user ids (U…, W…) and user group ids (S…)',
  ),
  AGENT_APPROVAL_POLICY: blankAsUnset(
    z
      .enum(['starter-or-approvers', 'approvers-only', 'channel-members'], {
        error: 'AGENT_APPROVAL_POLICY must be starter-or-approvers, approvers-only or channel-members',
      })
      .optional(),
  ),
  AGENT_REMIND_AFTER: duration('AGENT_REMIND_AFTER'),
  AGENT_REMIND_MAX: blankAsUnset(
    wholeNumber('AGENT_REMIND_MAX')
      .min(0, 'AGENT_REMIND_MAX must be 0 or more')
      .max(20, 'AGENT_REMIND_MAX must be at most 20')
      .optional(),
  ),
  AGENT_ESCALATE_TO: entryList(
    'AGENT_ESCALATE_TO',
    /^[SCG][A-Z0-9]{2,}$/,
    'must be a user group id (S…) or a channel id (C…, G…)',
    { onePerTeam: true },
  ),
  AGENT_QUESTION_TIMEOUT: duration('AGENT_QUESTION_TIMEOUT'),
  AGENT_ON_TIMEOUT: blankAsUnset(
    z
      .enum(['leave', 'reject', 'cancel'], { error: 'AGENT_ON_TIMEOUT must be leave, reject or cancel' })
      .optional(),
  ),
  // Under approvers-only, raising a budget past this needs an approver; no session starts above it.
  AGENT_MAX_BUDGET: blankAsUnset(
    z.coerce
      .number({ error: 'AGENT_MAX_BUDGET must be a number of USD, like 25 or 7.50' })
      .positive('AGENT_MAX_BUDGET must be above 0')
      .optional(),
  ),
  AUDIT_TOKEN: blankAsUnset(z.string().min(16, 'AUDIT_TOKEN must be at least 16 characters').optional()),
  AUDIT_RETENTION_DAYS: blankAsUnset(
    wholeNumber('AUDIT_RETENTION_DAYS').min(1, 'AUDIT_RETENTION_DAYS must be at least 1').optional(),
  ),
});

type ApprovalsEnv = z.output<typeof approvalsSchema>;

/** The reminders' settings (services/approvals/reminders.ts), with who may answer, the cap and the audit. */
export interface ApprovalConfig extends ReminderSettings {
  policy: 'starter-or-approvers' | 'approvers-only' | 'channel-members';
  /** USD: no session starts with more; above it, only an approver raises a budget (see policy.ts). */
  maxBudget?: number;
  /** Unset: GET /audit answers 404. */
  auditToken?: string;
  auditRetentionDays: number;
}

/** `oauth`: OAuth installs are on, where the escalation's place names its workspace. */
export function approvalsProblems(env: ApprovalsEnv, oauth: boolean): Problem[] {
  return oauth ? placesNameTheirWorkspace('AGENT_ESCALATE_TO', env.AGENT_ESCALATE_TO) : [];
}

export function approvalsSettings(env: ApprovalsEnv): { approvers: string[]; approvals: ApprovalConfig } {
  return {
    approvers: env.AGENT_APPROVERS,
    approvals: {
      policy: env.AGENT_APPROVAL_POLICY ?? 'starter-or-approvers',
      remindAfterMs: env.AGENT_REMIND_AFTER ?? 15 * 60_000,
      remindMax: env.AGENT_REMIND_MAX ?? 3,
      ...(env.AGENT_ESCALATE_TO.length > 0 ? { escalateTo: env.AGENT_ESCALATE_TO.join(',') } : {}),
      ...(env.AGENT_QUESTION_TIMEOUT ? { questionTimeoutMs: env.AGENT_QUESTION_TIMEOUT } : {}),
      onTimeout: env.AGENT_ON_TIMEOUT ?? 'leave',
      ...(env.AGENT_MAX_BUDGET === undefined ? {} : { maxBudget: env.AGENT_MAX_BUDGET }),
      ...(env.AUDIT_TOKEN ? { auditToken: env.AUDIT_TOKEN } : {}),
      auditRetentionDays: env.AUDIT_RETENTION_DAYS ?? 365,
    },
  };
}
