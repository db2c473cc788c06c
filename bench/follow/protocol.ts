/** What the orchestrator hands a worker, and what a worker hands back (as JSON files). */
export type Group = 'running' | 'waiting' | 'quiet';

export interface WorkerInput {
  mode: 'ours' | 'baseline';
  baseUrl: string;
  apiKey: string;
  budgetRps: number;
  sessions: Array<{ sessionId: string; group: Group }>;
  /** Epoch ms: when measuring starts and when the worker stops. */
  measureFrom: number;
  stopAt: number;
}

/** [kind, sessionId, key, receivedAt epoch ms]; kind 'm' message (key roundId#position), 'h' human input (key inputId). */
export type Received = [kind: 'm' | 'h', sessionId: string, key: string, at: number];

export interface WorkerOutput {
  mode: 'ours' | 'baseline';
  received: Received[];
  /** Requests sent inside the measurement window, by the session's group. */
  requestsByGroup: Record<Group, number>;
  requestsTotal: number;
  cpuSeconds: number;
  peakRssBytes: number;
  rssBeforeBytes: number;
  heapAfterFollowBytes: number;
  heapBeforeBytes: number;
}
