import type { HumanInputAnswer, HumanInputRequest } from '@agent-sessions/core';
import type { KnownBlock } from '@slack/types';
import { z } from 'zod';

/** Where a session lives in Slack and who started it. */
export interface SessionRecord {
  sessionId: string;
  channelId: string;
  /** The card's ts; its thread holds the agent's work. Null until the card is posted. */
  cardTs: string | null;
  startedBy: string;
  goal: string;
  status: string;
  budget: number | null;
  finished: boolean;
  createdAt: string;
  /**
   * Where the session's thread is when that is not the card's own (started by a mention or a DM, the
   * card is a reply in the mention's thread). Absent or null: the card's thread.
   */
  threadTs?: string | null;
  /** Where it came from, for the card: "Started from this thread, with 12 earlier messages". */
  origin?: string | null;
  /** The Slack workspace (and organisation) it was started from; the installation's key. */
  teamId?: string | null;
  enterpriseId?: string | null;
  workspace?: string | null;
  /**
   * The session's own channel (a code channel), when it has one: its thread's posts go there, at the top
   * of the channel; the card stays where it was started.
   */
  codeChannelId?: string | null;
}

export type NewSession = Omit<SessionRecord, 'createdAt' | 'finished' | 'status'> & {
  status?: string;
  /** The service key slot it runs under; absent: the configured AGENT_API_KEY. */
  keyRef?: string;
};
export type SessionPatch = Partial<Pick<SessionRecord, 'cardTs' | 'status' | 'budget' | 'finished'>>;

export type PromptState = 'pending' | 'answering' | 'answered';

export interface PromptRecord {
  sessionId: string;
  inputId: string;
  channelId: string;
  /** The prompt message's ts: saved after posting, else the posted-messages record of its key. */
  messageTs: string | null;
  request: HumanInputRequest;
  state: PromptState;
  answeredBy: string | null;
  answeredAt: string | null;
  /** Null until answered, and when it was answered outside Slack. */
  answer: HumanInputAnswer | null;
  /** The short key that stands for this prompt where its ref is too long (a select's block_id). */
  refKey: string;
  /**
   * The agent's messages its post carried ahead of the question (they were still waiting to be posted
   * when it asked): kept when the prompt is edited.
   */
  carried?: KnownBlock[];
}

/** A prompt with what answering needs of its session, read in one query. */
export interface PromptInSession extends PromptRecord {
  session: SessionRecord;
}

export type ClaimResult =
  | { claimed: true }
  | {
      claimed: false;
      state: 'answering' | 'answered' | 'missing';
      answeredBy: string | null;
      answeredAt: string | null;
    };

export type PostState =
  | { state: 'new' }
  | { state: 'posted'; ts: string }
  | { state: 'pending'; since: string };

const option = z.object({ id: z.string(), label: z.string(), description: z.string().optional() });
const kind = z.enum(['approval', 'single_select', 'multi_select', 'free_text', 'multi_question']);
const question = z.object({
  id: z.string(),
  prompt: z.string(),
  kind: z.enum(['approval', 'single_select', 'multi_select', 'free_text']),
  required: z.boolean(),
  options: z.array(option).optional(),
  minSelections: z.number().optional(),
  maxSelections: z.number().optional(),
});

/** What `prompts.request` holds: the core's normalized request, as the publisher saved it. */
export const humanInputRequestSchema: z.ZodType<HumanInputRequest> = z.object({
  inputId: z.string(),
  kind,
  prompt: z.string(),
  options: z.array(option).optional(),
  questions: z.array(question).optional(),
  minSelections: z.number().optional(),
  maxSelections: z.number().optional(),
  raw: z.unknown(),
});

export const humanInputAnswerSchema: z.ZodType<HumanInputAnswer> = z.object({
  approved: z.boolean().optional(),
  choiceId: z.string().optional(),
  choiceIds: z.array(z.string()).optional(),
  freeText: z.string().optional(),
  answers: z.record(z.string(), z.union([z.string(), z.array(z.string())])).optional(),
});

/** A row that doesn't hold what it should: named by table, column and row, never silently skipped. */
export class StoreDataError extends Error {
  override name = 'StoreDataError';
}

/** Slack blocks as stored: only their shape as a list of objects is checked. */
export const blocksSchema = z.array(z.record(z.string(), z.unknown())) as unknown as z.ZodType<KnownBlock[]>;

export function parseColumn<T>(schema: z.ZodType<T>, value: unknown, where: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new StoreDataError(
    `${where}: ${issue ? `${issue.path.join('.') || 'value'}: ${issue.message}` : 'unreadable'}`,
  );
}
