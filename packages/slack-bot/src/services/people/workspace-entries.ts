import { z } from 'zod';
import { commaSeparated } from '../../config-lists.js';

/**
 * Entries of AGENT_APPROVERS, AGENT_ALLOWED_CHANNELS and AGENT_ESCALATE_TO, each optionally prefixed with
 * the workspace it belongs to: `T0NORTH:U123`, `T0NORTH:S456`, `T0NORTH:C789`, `T0NORTH:dm`.
 *
 * - A prefixed entry applies only in that workspace (under OAuth: requests and sessions of that team; with
 *   one bot token: when the prefix is the bot's own workspace).
 * - An unprefixed entry keeps today's meaning with one bot token. Under OAuth an unprefixed approver
 *   applies only in the workspace it exists in: a user id counts where Slack says that person belongs
 *   (users.info's team), a user group is read with the workspace's own token (another workspace's fails,
 *   granting nothing). Places (AGENT_ALLOWED_CHANNELS, AGENT_ESCALATE_TO) must be prefixed under OAuth
 *   (config-tenants.ts): `dm` is in every workspace, and a shared channel has one id in two.
 */
export interface WorkspaceEntry {
  /** The workspace (team id) it is limited to; undefined: no prefix. */
  team?: string;
  id: string;
}

const TEAM = /^T[A-Z0-9]{2,}$/;

export function parseEntry(raw: string): WorkspaceEntry {
  const at = raw.indexOf(':');
  if (at < 0) return { id: raw };
  return { team: raw.slice(0, at), id: raw.slice(at + 1) };
}

/** The entries that apply in `team` (prefixed with it, or unprefixed); every unprefixed one when unknown. */
export function entriesIn(entries: WorkspaceEntry[], team: string | undefined): WorkspaceEntry[] {
  return entries.filter((e) => e.team === undefined || e.team === team);
}

/**
 * A comma-separated list of workspace entries, each checked: its prefix a team id, its id of the kinds
 * `what` names. A problem names the variable, the entry and the rule.
 */
export function entryList(name: string, id: RegExp, rule: string, options: { onePerTeam?: boolean } = {}) {
  return z
    .string()
    .optional()
    .transform(commaSeparated)
    .superRefine((list, ctx) => {
      const seen = new Set<string>();
      for (const raw of list) {
        const entry = parseEntry(raw);
        const got = `; got "${raw.slice(0, 60)}"`;
        const problem =
          entry.team !== undefined && !TEAM.test(entry.team)
            ? `${name}'s workspace prefix must be a team id (T…) and a colon, like T0NORTH:${id.test(entry.id) ? entry.id : '…'}${got}`
            : !id.test(entry.id)
              ? `${name} ${rule}, each optionally prefixed with its workspace (T0NORTH:…)${got}`
              : undefined;
        if (problem) {
          ctx.addIssue({ code: 'custom', message: problem });
          continue;
        }
        const slot = entry.team ?? '(no prefix)';
        if (options.onePerTeam && seen.has(slot)) {
          ctx.addIssue({
            code: 'custom',
            message: `${name} takes one target per workspace and one without a prefix; ${slot} has a second${got}`,
          });
        }
        seen.add(slot);
      }
    });
}

/** AGENT_ESCALATE_TO's target for a workspace: its own entry, else the unprefixed one. */
export function escalationIn(raw: string | undefined, team: string | undefined): WorkspaceEntry | undefined {
  const entries = commaSeparated(raw).map(parseEntry);
  // With one bot token and no unprefixed entry, the one entry there is (its prefix is the bot's workspace).
  if (team === undefined)
    return entries.find((e) => e.team === undefined) ?? (entries.length === 1 ? entries[0] : undefined);
  return entries.find((e) => e.team === team) ?? entries.find((e) => e.team === undefined);
}
