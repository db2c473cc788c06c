import type { Step } from './agent/steps.js';

/** The emulator's own records. Wire shapes are made from these in `present.ts`. */

export const SESSION_STATUSES = [
  'queued',
  'orchestrating',
  'running',
  'waiting_human',
  'paused',
  'cost_limit',
  'completed',
  'cancelled',
  'error',
] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

export const ROUND_STATUSES = [
  'running',
  'waiting_human',
  'paused',
  'cost_limit',
  'completed',
  'cancelled',
  'error',
  'superseded',
] as const;
export type RoundStatus = (typeof ROUND_STATUSES)[number];

export const TERMINAL: ReadonlySet<SessionStatus> = new Set(['completed', 'cancelled', 'error']);

export type InputKind = 'approval' | 'single_select' | 'multi_select' | 'free_text' | 'multi_question';

export interface InputOption {
  id: string;
  label: string;
  description?: string;
}

export interface InputQuestion {
  id: string;
  prompt: string;
  kind: 'free_text' | 'single_select' | 'multi_select';
  required?: boolean;
  options?: InputOption[];
}

export interface HumanInputRequest {
  inputId: string;
  kind: InputKind;
  prompt: string;
  options?: InputOption[];
  minSelections?: number;
  maxSelections?: number;
  questions?: InputQuestion[];
}

export interface HumanInputAnswer {
  approved?: boolean;
  choiceId?: string;
  choiceIds?: string[];
  freeText?: string;
  answers?: Record<string, unknown>;
}

/**
 * How a question is put on the wire: `human_input_needed` (the emulator's own shape), or `elicitation`
 * (another framework's shape, which our clients are not meant to read: the `unreadable_question` scenario).
 */
export type QuestionWire = 'human_input_needed' | 'elicitation';

export interface PendingInput {
  request: HumanInputRequest;
  /** Absent: `human_input_needed`. */
  wire?: QuestionWire;
  roundId: string;
  status: 'pending' | 'responded' | 'superseded';
  askedAt: number;
  answeredAt?: number;
  answer?: HumanInputAnswer;
}

export interface Message {
  roundId: string;
  role: 'assistant' | 'tool' | 'user' | 'system';
  content: string;
  name?: string;
  reasoning?: string;
  reasoningDurationMs?: number;
  toolCallId?: string;
  toolCalls?: Array<Record<string, unknown>>;
  timestamp: number;
  /** Place in the session's oldest-first stream, across rounds (never presented). */
  seq: number;
  /** An internal entry (`hidden-entries` quirk): paged like the others, then filtered out. */
  hidden?: boolean;
}

export type RoundTrigger =
  | 'create'
  | 'resume'
  | 'human_input'
  | 'redirect'
  /** A subagent's round, open beside the main one (`concurrent-rounds` quirk). */
  | 'subagent'
  /** The service's own bookkeeping, every entry hidden (`hidden-entries` quirk). */
  | 'internal';

export interface Round {
  roundId: string;
  index: number;
  trigger: RoundTrigger;
  status: RoundStatus;
  startedAt: number;
  completedAt: number | null;
  iterations: number;
  messages: Message[];
  humanInput?: PendingInput;
  note?: string;
  /** `concurrent-rounds`: this main round already opened its researcher subagent. */
  openedResearcher?: boolean;
  /** The session's message count when the round was created: where `after` of a round without messages starts. */
  createdAtSeq: number;
}

export interface Cost {
  totalCost: number;
  totalTokens: number;
  promptTokens: number;
  completionTokens: number;
}

export interface Session {
  sessionId: string;
  accountId: string;
  goal: string;
  context: Record<string, unknown> | null;
  guardrails: Record<string, unknown>;
  maxCostPerSession: number | null;
  maxIterations: number;
  scenario: string;
  status: SessionStatus;
  cost: Cost;
  rounds: Round[];
  createdAt: number;
  updatedAt: number;
  completedAt: number | null;
  error: string | null;
  completionReport: Record<string, unknown> | null;
  /** Messages appended so far, across rounds: the next message's `seq` follows it. */
  messageSeq: number;
  /** The round the scripted agent's main line writes to (the newest one unless subagents are open). */
  mainRoundId: string;
  /** Virtual time of the last status change (`unknown-status` shows `thinking` for a while after it). */
  statusSince: number;
  /** Where the scripted agent is in its script. */
  script: { steps: Step[]; next: number; timer: number; repeats: number };
}

export interface Account {
  accountId: string;
  keyIndex: number;
  hasIntegration: boolean;
}
