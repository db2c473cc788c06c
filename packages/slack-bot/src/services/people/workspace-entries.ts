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
 *   (config/conversation.ts, config/approvals.ts): `dm` is in every workspace, and a shared channel has
 *   one id in two.
 */
export interface WorkspaceEntry {
  /** The workspace (team id) it is limited to; undefined: no prefix. */
  team?: string;
  id: string;
}

export function parseEntry(raw: string): WorkspaceEntry {
  const at = raw.indexOf(':');
  if (at < 0) return { id: raw };
  return { team: raw.slice(0, at), id: raw.slice(at + 1) };
}

/** The entries that apply in `team` (prefixed with it, or unprefixed); every unprefixed one when unknown. */
export function entriesIn(entries: WorkspaceEntry[], team: string | undefined): WorkspaceEntry[] {
  return entries.filter((e) => e.team === undefined || e.team === team);
}

/** AGENT_ESCALATE_TO's target for a workspace: its own entry, else the unprefixed one. */
export function escalationIn(raw: string | undefined, team: string | undefined): WorkspaceEntry | undefined {
  const entries = (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map(parseEntry);
  // With one bot token and no unprefixed entry, the one entry there is (its prefix is the bot's workspace).
  if (team === undefined)
    return entries.find((e) => e.team === undefined) ?? (entries.length === 1 ? entries[0] : undefined);
  return entries.find((e) => e.team === team) ?? entries.find((e) => e.team === undefined);
}
