/**
 * The questions a poll finds: requests for human input in new messages and round objects, announced
 * once each; and a wait on a person with no question that can be read, raised once per wait.
 */

import { parseHumanInputDetailed } from '../human-input/index.js';
import { ANSWERED_INPUT_STATUSES, ROUND_INPUT_KEYS } from '../human-input/parse.js';
import type { MessagesCursor, RoundsInfo } from '../messages/index.js';
import { roundIdOf } from '../round-id.js';
import type { FollowEvent } from './events.js';
import type { FollowState, WaitingEpisode } from './follow-state.js';
import type { FollowedMessage } from './sessions-reader.js';

const WAITING_HUMAN = 'waiting_human';

const INPUT_ID_KEYS = ['inputId', 'input_id', 'pendingInputId', 'requestId', 'request_id'];

/** inputIds whose round object says they were answered (or superseded): never announced again. */
export function answeredInputIds(rounds: unknown[]): Set<string> {
  const ids = new Set<string>();
  for (const round of rounds) {
    if (!round || typeof round !== 'object') continue;
    for (const key of ROUND_INPUT_KEYS) {
      const input = (round as Record<string, unknown>)[key];
      if (!input || typeof input !== 'object') continue;
      const r = input as Record<string, unknown>;
      const status = typeof r.status === 'string' ? r.status.toLowerCase() : undefined;
      const id = r.inputId ?? r.id ?? r.input_id ?? r.requestId;
      if (status !== undefined && ANSWERED_INPUT_STATUSES.has(status) && typeof id === 'string') ids.add(id);
    }
  }
  return ids;
}

/** The newest input id anywhere in raw data (JSON text in a message's content included), not answered. */
export function findInputId(values: unknown[], answered: Set<string>): string | undefined {
  let found: string | undefined;
  const visit = (value: unknown, depth: number): void => {
    if (depth > 6 || value === null || value === undefined) return;
    if (typeof value === 'string') {
      const t = value.trim();
      if (depth > 0 && t.startsWith('{') && t.length < 100_000) {
        try {
          visit(JSON.parse(t), depth + 1);
        } catch {
          // Not JSON: plain text holds no id we could trust.
        }
      }
      return;
    }
    if (Array.isArray(value)) {
      for (const item of value) visit(item, depth + 1);
      return;
    }
    if (typeof value !== 'object') return;
    for (const [key, inner] of Object.entries(value)) {
      if (INPUT_ID_KEYS.includes(key) && typeof inner === 'string' && inner !== '' && !answered.has(inner)) {
        found = inner;
      } else {
        visit(inner, depth + 1);
      }
    }
  };
  for (const value of values) visit(value, 0);
  return found;
}

/** A message a poll delivers, with its place in the session's stream. */
export interface FreshMessage {
  message: FollowedMessage;
  key: string;
  roundId: string;
  position: number;
}

export interface FoundQuestions {
  events: FollowEvent[];
  /** inputIds announced for the first time by this poll. */
  newlyAnnounced: string[];
  /** A round object holds a question not answered yet. */
  roundPending: boolean;
}

/**
 * The questions in this poll's new messages and in the status's round objects, of a session that is not
 * terminal: each inputId is announced once, and one that a round object says was answered never.
 */
export function findQuestions(input: {
  sessionId: string;
  fresh: readonly FreshMessage[];
  rounds: unknown[];
  roundsInfo: RoundsInfo;
  cursor: MessagesCursor;
  /** inputIds announced by earlier polls. */
  announced: readonly string[];
  answered: Set<string>;
}): FoundQuestions {
  const { sessionId, fresh, rounds, roundsInfo, cursor, answered } = input;
  const announced = new Set(input.announced);
  const events: FollowEvent[] = [];
  const newlyAnnounced: string[] = [];
  let roundPending = false;
  const ended = new Set(roundsInfo.ended);
  const running = new Set(roundsInfo.running);
  const listed = roundsInfo.order ?? [];
  const order = listed.length > 0 ? listed : cursor.rounds.map((r) => r.roundId);
  // A round the status doesn't list yet but messages came from is newer than every round it lists.
  const listedIds = new Set(listed);
  const unlisted = cursor.rounds.filter(
    (r) => listed.length > 0 && !listedIds.has(r.roundId) && fresh.some((m) => m.roundId === r.roundId),
  );
  const newestRound =
    unlisted[unlisted.length - 1]?.roundId ?? order[order.length - 1] ?? fresh[fresh.length - 1]?.roundId;
  const candidates: Array<{ source: unknown; key: string; message?: boolean }> = [];
  for (const m of fresh) {
    // A question in any round may be pending (subagents ask too), unless its round ended, or (its
    // round object saying nothing) rounds take turns here and a newer one started: an answer starts
    // a new round.
    if (ended.has(m.roundId)) continue;
    const turnTaking = !cursor.interleaved && !running.has(m.roundId);
    if (turnTaking && newestRound !== undefined && m.roundId !== newestRound) continue;
    candidates.push({ source: m.message, key: m.key, message: true });
  }
  for (const round of rounds) {
    candidates.push({ source: round, key: `round:${roundIdOf(round) ?? '?'}` });
  }
  for (const { source, key, message } of candidates) {
    const parsed = parseHumanInputDetailed(source);
    if (!parsed) continue;
    if (!parsed.ok) {
      // Only report a broken request the first time its message is read.
      if (!key.startsWith('round:')) {
        events.push({
          type: 'invalid_human_input',
          sessionId,
          key: `invalid:${key}`,
          reason: parsed.reason,
          raw: parsed.raw,
        });
      }
      continue;
    }
    const { request } = parsed;
    if (answered.has(request.inputId)) continue;
    if (key.startsWith('round:')) roundPending = true;
    if (announced.has(request.inputId)) continue;
    announced.add(request.inputId);
    newlyAnnounced.push(request.inputId);
    events.push({
      type: 'human_input_needed',
      sessionId,
      key: `input:${request.inputId}`,
      request,
      ...(message ? { messageKey: key } : {}),
    });
  }
  return { events, newlyAnnounced, roundPending };
}

/**
 * The wait on a person that `status` is in, if any: a new one starts at the status change, and one with
 * no question pending (once every page was read) raises `human_input_unreadable`, once.
 */
export function waitingStep(input: {
  sessionId: string;
  status: string;
  previous: FollowState;
  updatedAt: string | null;
  rounds: unknown[];
  roundPending: boolean;
  askedSinceRun: readonly string[];
  answered: Set<string>;
  /** Every page was read this poll: the question can't be in a page not read yet. */
  readAll: boolean;
  /** The newest messages, shown raw with the event. */
  recentMessages: () => FollowedMessage[];
}): { waiting: WaitingEpisode | null; event?: FollowEvent } {
  const { sessionId, status, previous, updatedAt, rounds, answered } = input;
  if (status !== WAITING_HUMAN) return { waiting: null };
  const waiting = previous.waiting ?? {
    since: updatedAt ?? `${rounds.length}:${previous.announcedInputs.length}`,
    unreadableRaised: false,
  };
  const pending = input.roundPending || input.askedSinceRun.some((id) => !answered.has(id));
  if (pending || !input.readAll || waiting.unreadableRaised) return { waiting };
  const recent = input.recentMessages();
  const inputId = findInputId([...rounds, ...recent], answered);
  return {
    waiting: { ...waiting, unreadableRaised: true },
    event: {
      type: 'human_input_unreadable',
      sessionId,
      key: `unreadable:${waiting.since}`,
      status,
      ...(inputId === undefined ? {} : { inputId }),
      raw: { rounds, messages: recent },
    },
  };
}
