import type { HumanInputRequest } from '@agent-sessions/core';
import type { LRUCache } from 'lru-cache';
import type { Logger } from '../../logger.js';
import type { SessionRecord } from '../../store/records.js';
import { cacheKey, currentWorkspace } from '../../workspace.js';
import { SharedCalls } from '../shared-calls.js';
import type { SlackClient } from '../slack-out/outbound/index.js';
import { ttlCache } from '../ttl-cache.js';
import { ApproverScope } from './approver-scope.js';
import type { OwnOrganisation } from './own-organisation.js';
import { entriesIn, parseEntry, type WorkspaceEntry } from './workspace-entries.js';

export type Verdict = { allowed: true } | { allowed: false; reason: string };

/** What someone wants to do: steer a session (signals, budget) or answer one of its questions. */
export type ActTarget =
  | {
      kind: 'steer';
      session: Pick<SessionRecord, 'sessionId' | 'startedBy' | 'channelId'>;
      /** Redirecting the agent; `approvalWaiting` when one of its approvals is still unanswered. */
      redirect?: boolean;
      approvalWaiting?: boolean;
      /** Raising (or setting, on resume) its budget to this, in USD. */
      newBudget?: number;
    }
  | {
      kind: 'answer';
      session: Pick<SessionRecord, 'sessionId' | 'startedBy' | 'channelId'>;
      request: HumanInputRequest;
    };

/**
 * Who may act on a session. One object decides for every way of acting (buttons, forms, commands, and
 * thread replies when they come), so another policy — approvers only for approval questions, channel
 * members — is a new implementation, not a change to each caller.
 */
export interface ActPolicy {
  mayAct(userId: string, target: ActTarget): Promise<Verdict>;
  /**
   * Who may answer this question, as Slack mrkdwn that mentions them (`<@U…>`, `<!subteam^S…>`): the
   * prompt's "who can answer" line, reminders, and refusals. Optional so a test's small fake needn't.
   */
  whoMayAnswer?(
    session: Pick<SessionRecord, 'startedBy' | 'channelId'>,
    request: HumanInputRequest,
  ): Answerers;
}

/** Who may answer a question: `line` for the prompt, `mentions` to notify them (empty: nobody to ping). */
export interface Answerers {
  line: string;
  mentions: string;
  /** Who else may answer without being pinged, in words: reminders say it after the mentions. */
  others?: string;
}

/** How long past its lifetime a member list may still answer while Slack can't be asked again. */
const STALE_MEMBERS_GRACE_MS = 5 * 60_000;
/** Member lists kept per reader (the least recently used dropped first; read from Slack again). */
const MAX_MEMBER_LISTS = 2_000;

/**
 * Member lists read from Slack (a user group's, a channel's), per workspace and list (`cacheKey`): fresh
 * for `ttlMs`, then kept STALE_MEMBERS_GRACE_MS more for when Slack can't be asked again.
 */
class MemberLists {
  readonly #lists: LRUCache<string, Set<string>>;

  constructor(ttlMs: number) {
    this.#lists = ttlCache({ max: MAX_MEMBER_LISTS, ttlMs: ttlMs + STALE_MEMBERS_GRACE_MS });
  }

  /** The list, if it is within its lifetime. */
  fresh(id: string): Set<string> | undefined {
    const key = cacheKey(id);
    const list = this.#lists.get(key);
    return list && this.#lists.getRemainingTTL(key) > STALE_MEMBERS_GRACE_MS ? list : undefined;
  }

  /** The list last read, fresh or within its grace: only for when Slack can't be asked. */
  lastRead(id: string): Set<string> | undefined {
    return this.#lists.get(cacheKey(id));
  }

  keep(id: string, members: Set<string>): void {
    this.#lists.set(cacheKey(id), members);
  }
}

/**
 * The configured approvers: user ids (U…, W…) and user groups (S…, members kept a minute), per workspace.
 */
export class Approvers {
  readonly #entries: WorkspaceEntry[];
  readonly #scope: ApproverScope;
  readonly #groups: MemberLists;
  constructor(
    private readonly slack: SlackClient,
    ids: string[],
    private readonly logger: Logger,
    groupTtlMs = 60_000,
  ) {
    this.#entries = ids.map(parseEntry);
    this.#groups = new MemberLists(groupTtlMs);
    this.#scope = new ApproverScope(slack, logger, groupTtlMs);
  }

  /** The approvers as mentions: users `<@U…>`, user groups `<!subteam^S…>`. */
  mentions(): string[] {
    const shown = this.#scope.shown(this.#entries);
    const ids = [...new Set(shown.map((e) => e.id))];
    const users = ids.filter((id) => !id.startsWith('S')).map((u) => `<@${u}>`);
    return [...users, ...ids.filter((id) => id.startsWith('S')).map((g) => `<!subteam^${g}>`)];
  }

  async includes(userId: string): Promise<boolean> {
    const applying = await this.#scope.applying(this.#entries);
    for (const entry of applying) {
      if (!entry.id.startsWith('S') && (await this.#scope.counts(entry, userId))) return true;
    }
    // A group is read with the workspace's own token: another workspace's can't be read, and grants nothing.
    for (const entry of applying) {
      if (entry.id.startsWith('S') && (await this.#members(entry.id)).has(userId)) return true;
    }
    return false;
  }

  async #members(group: string): Promise<Set<string>> {
    const fresh = this.#groups.fresh(group);
    if (fresh) return fresh;
    try {
      const result = await this.slack.usergroups.users.list({ usergroup: group });
      const members = new Set(result.users ?? []);
      this.#groups.keep(group, members);
      return members;
    } catch (error) {
      // Fail closed: an approver group we can't read grants nothing — but, as for channel members, the
      // last list read serves a few minutes past its life, so a Slack hiccup doesn't stop every approval.
      this.logger.warn({ err: error, group }, 'could not read an approver user group');
      return this.#groups.lastRead(group) ?? new Set();
    }
  }
}

/** Today's rule (`starter-or-approvers`): the person who started the session, and the approvers. */
export class StarterOrApprovers implements ActPolicy {
  constructor(private readonly approvers: Approvers) {}

  async mayAct(userId: string, { session }: ActTarget): Promise<Verdict> {
    if (userId === session.startedBy || (await this.approvers.includes(userId))) return { allowed: true };
    return { allowed: false, reason: onlyThey(this.#who(session)) };
  }

  whoMayAnswer(session: Pick<SessionRecord, 'startedBy'>): Answerers {
    const all = this.#who(session);
    return { line: `Waiting for ${joinOr(all)}`, mentions: all.join(' ') };
  }

  /** The starter and the approvers: the prompt's "Waiting for" line and the refusal name the same people. */
  #who(session: Pick<SessionRecord, 'startedBy'>): string[] {
    return [`<@${session.startedBy}>`, ...this.approvers.mentions()];
  }
}

/**
 * `approvers-only` (four eyes): approval questions are answered by an approver other than the person
 * who started the session — even when the starter is an approver too. The starter still steers (pause,
 * resume, cancel, redirect), and answers the other kinds of questions (a choice, free text), as do the
 * approvers — but can't redirect the agent while one of its approvals waits (that would steer it past
 * the decision), and budgets above AGENT_MAX_BUDGET are an approver's to give (BudgetCeiling).
 */
export class ApproversOnly implements ActPolicy {
  readonly #fallback: StarterOrApprovers;

  constructor(private readonly approvers: Approvers) {
    this.#fallback = new StarterOrApprovers(approvers);
  }

  async mayAct(userId: string, target: ActTarget): Promise<Verdict> {
    const who = this.approvers.mentions();
    const named = who.length > 0 ? joinOr(who) : 'an approver (none is configured: set AGENT_APPROVERS)';
    if (target.kind === 'steer' && target.redirect && target.approvalWaiting) {
      if (userId === target.session.startedBy) {
        return {
          allowed: false,
          reason: `An approval is waiting in this session and needs a second person: you started it, so ${named} must approve or reject it before you can redirect the agent.`,
        };
      }
    }
    if (target.kind !== 'answer' || target.request.kind !== 'approval') {
      return this.#fallback.mayAct(userId, target);
    }
    if (userId === target.session.startedBy) {
      return {
        allowed: false,
        reason: `Approvals here need a second person: you started this session, so ${named} must approve or reject it.`,
      };
    }
    if (await this.approvers.includes(userId)) return { allowed: true };
    return {
      allowed: false,
      reason:
        who.length > 0 ? onlyThey(who, 'answer this approval') : `Only ${named} can answer this approval.`,
    };
  }

  whoMayAnswer(session: Pick<SessionRecord, 'startedBy'>, request: HumanInputRequest): Answerers {
    if (request.kind !== 'approval') return this.#fallback.whoMayAnswer(session);
    const who = this.approvers.mentions();
    if (who.length === 0) return { line: 'Waiting for an approver (none is configured)', mentions: '' };
    return { line: `Waiting for an approver: ${joinOr(who)}`, mentions: who.join(' ') };
  }
}

/**
 * `channel-members`: anyone in the session's channel. Membership is asked of Slack
 * (`conversations.members`, kept for a minute) rather than taken from where the click came from,
 * because answers also come from App Home and DMs, where the click's channel says nothing. An
 * unreadable member list grants nothing (fail closed). Approvers may answer from anywhere.
 */
export class ChannelMembers implements ActPolicy {
  readonly #channels: MemberLists;
  /**
   * A channel's list being read now: everyone asking meanwhile waits for that one read. Two hundred
   * `/agent start`s in five channels otherwise each ask Slack while the first answer is on its way, and
   * over `conversations.members`' limit (Tier 4) most are answered 429.
   */
  readonly #reading = new SharedCalls<Set<string> | undefined>();

  constructor(
    private readonly slack: Pick<SlackClient, 'conversations'>,
    private readonly approvers: Approvers,
    private readonly logger: Logger,
    ttlMs = 60_000,
    /** With it, people of another organisation in a Slack Connect channel are not counted as members. */
    private readonly ownOrganisation?: Pick<OwnOrganisation, 'includes'>,
  ) {
    this.#channels = new MemberLists(ttlMs);
  }

  async mayAct(userId: string, { session }: ActTarget): Promise<Verdict> {
    if (userId === session.startedBy || (await this.approvers.includes(userId))) return { allowed: true };
    if (await this.includes(session.channelId, userId)) return { allowed: true };
    return {
      allowed: false,
      reason: onlyThey([`members of <#${session.channelId}> (where this session runs)`]),
    };
  }

  /**
   * Reminders ping the starter and say in words that the channel may answer: a bot's `<!here>` on every
   * reminder would notify everyone online for a question most of them needn't act on, which Slack's app
   * guidelines advise against (broad mentions only for emergencies, with the installer's consent).
   */
  whoMayAnswer(session: Pick<SessionRecord, 'startedBy' | 'channelId'>): Answerers {
    const anyone = `Anyone in <#${session.channelId}> can answer`;
    return { line: anyone, mentions: `<@${session.startedBy}>`, others: anyone };
  }

  /** Whether someone is in the channel, as Slack lists it, and of the bot's own organisation. */
  async includes(channelId: string, userId: string): Promise<boolean> {
    if (!(await this.#members(channelId)).has(userId)) return false;
    return this.ownOrganisation ? this.ownOrganisation.includes(userId) : true;
  }

  /**
   * Whether someone is in the channel at all, as Slack lists it (a Slack Connect guest too): undefined
   * when Slack can't tell (a private channel the bot is not in), which only posting there will show.
   */
  async inChannel(channelId: string, userId: string): Promise<boolean | undefined> {
    return (await this.#read(channelId))?.has(userId);
  }

  async #members(channel: string): Promise<Set<string>> {
    return (await this.#read(channel)) ?? new Set();
  }

  /** The channel's members, kept a while; undefined when Slack can't list them and no recent list will do. */
  #read(channel: string): Promise<Set<string> | undefined> {
    const fresh = this.#channels.fresh(channel);
    if (fresh) return Promise.resolve(fresh);
    return this.#reading.run(cacheKey(channel), () => this.#ask(channel));
  }

  async #ask(channel: string): Promise<Set<string> | undefined> {
    try {
      const members = new Set<string>();
      let cursor: string | undefined;
      do {
        const page = await this.slack.conversations.members({
          channel,
          // Slack's reference: "a limit value under 1000" (the SDK's types: at most 999).
          limit: 999,
          ...(cursor ? { cursor } : {}),
        });
        for (const m of page.members ?? []) members.add(m);
        cursor = page.response_metadata?.next_cursor || undefined;
      } while (cursor);
      this.#channels.keep(channel, members);
      return members;
    } catch (error) {
      this.logger.warn({ err: error, channel }, 'could not read a channel’s members');
      // A list a little past its minute still beats refusing everyone while Slack hiccups; an old one
      // would let someone who left keep deciding, so past a few minutes it counts for nothing.
      return this.#channels.lastRead(channel);
    }
  }
}

/**
 * The policy AGENT_APPROVAL_POLICY names. `members` is the bot's one reader of channel members (reading
 * access uses it too, whatever the policy).
 */
export function choosePolicy(
  name: 'starter-or-approvers' | 'approvers-only' | 'channel-members',
  approvers: Approvers,
  members: ChannelMembers,
): ActPolicy {
  if (name === 'approvers-only') return new ApproversOnly(approvers);
  if (name === 'channel-members') return members;
  return new StarterOrApprovers(approvers);
}

/**
 * The one way every refusal names who may act: "Only a, b or c can do that." — the same names, in the same
 * order, as the prompt's "Waiting for a, b or c".
 */
export function onlyThey(who: string[], what = 'do that'): string {
  return `Only ${joinOr(who)} can ${what}.`;
}

/** "a, b or c". */
export function joinOr(items: string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;
}

/** A direct message (`D…`; a user id stands for the bot's DM with them): no channel of members around it. */
export function isDirectConversation(channelId: string): boolean {
  return /^[DUW]/.test(channelId);
}

/** The entry of AGENT_ALLOWED_CHANNELS that allows the bot's DMs (each person's DM id is different). */
export const DM_ENTRY = 'dm';

/**
 * Sessions may be started only in the allowed channels, when a list is configured — the bot's DMs (its
 * Messages tab, or `/agent start` typed there) included: they start sessions only when the list holds
 * `dm`. One rule for every way of starting, so a DM is not a way around the list.
 */
export function channelPolicy(allowedChannels: string[]): (channelId: string) => Verdict {
  const entries = allowedChannels.map(parseEntry);
  return (channelId) => {
    // An entry may be limited to a workspace (T0NORTH:C123); a workspace none of whose apply starts nowhere.
    const workspace = currentWorkspace();
    const here = workspace?.isolated ? entriesIn(entries, workspace.teamId) : entries;
    const allowed = new Set(here.map((e) => e.id));
    if (entries.length === 0 || allowed.has(channelId)) return { allowed: true };
    const direct = isDirectConversation(channelId);
    if (direct && allowed.has(DM_ENTRY)) return { allowed: true };
    const places = [
      ...[...allowed].filter((c) => c !== DM_ENTRY).map((c) => `<#${c}>`),
      ...(allowed.has(DM_ENTRY) ? ['direct messages with me'] : []),
    ];
    return {
      allowed: false,
      reason: `Agent sessions can't be started in ${direct ? 'direct messages' : 'this channel'}. ${places.length > 0 ? `Allowed: ${places.join(', ')}.` : 'None is allowed in this workspace (AGENT_ALLOWED_CHANNELS).'}`,
    };
  };
}
