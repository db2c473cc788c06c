// What the trigger fires on, and what it remembers so that each event fires once. Pure (no n8n calls):
// unit-tested directly, and kept in the node's static data between polls and restarts of n8n.
import {
	checkId,
	type HumanInputRequest,
	isSuccessStatus,
	type SessionStatus,
} from '@agent-sessions/core/pure-without-zod';

export const TRIGGER_EVENTS = ['question', 'finished', 'failed', 'cancelled', 'budgetReached'] as const;
export type TriggerEvent = (typeof TRIGGER_EVENTS)[number];

/** At most this many sessions per trigger: each is read at every poll. */
export const MAX_FOLLOWED_SESSIONS = 100;
/** Event ids kept per session (questions add one each); the oldest go first. */
const MAX_FIRED_PER_SESSION = 50;

export interface SessionEvent {
	event: TriggerEvent;
	/** Names the event once and for all: the dedupe key. */
	eventId: string;
}

/**
 * The event a session's state is, if any. A question is keyed by its input id (a session asks many); a
 * question nobody can read still fires (never dropped), keyed by the rounds it has; reaching the budget by
 * the spend (a resumed session may reach its next budget); the ends once per session.
 */
export function eventOf(status: SessionStatus, request: HumanInputRequest | undefined): SessionEvent | undefined {
	const id = status.sessionId;
	switch (status.status) {
		case 'waiting_human':
			return {
				event: 'question',
				eventId: request ? `question:${id}:${request.inputId}` : `question:${id}:unreadable:${status.rounds.length}`,
			};
		case 'cost_limit':
			return { event: 'budgetReached', eventId: `budgetReached:${id}:${status.cost.totalCost}` };
		case 'cancelled':
			return { event: 'cancelled', eventId: `cancelled:${id}` };
		case 'error':
		case 'failed':
			return { event: 'failed', eventId: `failed:${id}` };
		default:
			return isSuccessStatus(status.status) ? { event: 'finished', eventId: `finished:${id}` } : undefined;
	}
}

/** Events that still wait for a person: fired even when they began before the trigger's first poll. */
const STILL_WAITING: ReadonlySet<TriggerEvent> = new Set(['question', 'budgetReached']);

/** The trigger's memory, as kept in `getWorkflowStaticData('node')`. */
export interface TriggerMemory {
	/** The first poll is done: ends seen from now on are new. */
	started: boolean;
	/** Per session, the event ids already fired (or, on the first poll, already there). */
	fired: Record<string, string[]>;
}

/** Reads what static data holds, whatever it holds (a hand-edited or older workflow): never throws. */
export function readMemory(data: Record<string, unknown>): TriggerMemory {
	const fired: Record<string, string[]> = {};
	const raw = data.fired;
	if (raw !== null && typeof raw === 'object' && !Array.isArray(raw)) {
		for (const [id, ids] of Object.entries(raw)) {
			if (Array.isArray(ids)) fired[id] = ids.filter((x): x is string => typeof x === 'string');
		}
	}
	return { started: data.started === true, fired };
}

export interface Decision {
	/** The events to fire now, in the order of the sessions. */
	fire: Array<{ sessionId: string; event: SessionEvent }>;
	/** The memory to keep. */
	memory: TriggerMemory;
}

/**
 * Which of the sessions' current events fire, given what was fired before. Only the chosen kinds fire;
 * an event fires once (its id remembered). On the very first poll, a session that had already ended is
 * only remembered (not fired: following a list of old sessions must not flood the workflow), while a
 * question or a budget stop that still waits fires. Sessions no longer followed are forgotten.
 */
export function decide(
	memory: TriggerMemory,
	current: Array<{ sessionId: string; event: SessionEvent | undefined }>,
	chosen: ReadonlySet<TriggerEvent>,
): Decision {
	const fired: Record<string, string[]> = {};
	const fire: Decision['fire'] = [];
	for (const { sessionId, event } of current) {
		const seen = memory.fired[sessionId] ?? [];
		fired[sessionId] = seen;
		if (!event || seen.includes(event.eventId)) continue;
		fired[sessionId] = [...seen, event.eventId].slice(-MAX_FIRED_PER_SESSION);
		const beforeFirstPoll = !memory.started && !STILL_WAITING.has(event.event);
		if (chosen.has(event.event) && !beforeFirstPoll) fire.push({ sessionId, event });
	}
	return { fire, memory: { started: true, fired } };
}

export type SessionIdsResult = { ok: true; ids: string[] } | { ok: false; message: string };

/**
 * The Session IDs parameter: a text of ids separated by commas, spaces or new lines, or (from an
 * expression) a list of ids or of items with a `sessionId`. Each id is checked as people paste ids
 * (core's checkId); duplicates count once. Empty is an error: a trigger that follows nothing never fires.
 */
export function parseSessionIds(value: unknown): SessionIdsResult {
	const parts: unknown[] = Array.isArray(value)
		? value.map((v) => (v !== null && typeof v === 'object' && 'sessionId' in v ? v.sessionId : v))
		: String(value ?? '').split(/[\s,]+/);
	const ids: string[] = [];
	for (const part of parts) {
		if (typeof part !== 'string' && typeof part !== 'number') {
			return { ok: false, message: `Parameter "Session IDs": ${JSON.stringify(part)} is not a session ID` };
		}
		const id = String(part).trim();
		if (id === '' && !Array.isArray(value)) continue;
		const problems = checkId(id, 'sessionId');
		if (problems.length > 0) {
			return { ok: false, message: `Parameter "Session IDs": ${problems.map((p) => p.message).join('; ')}` };
		}
		if (!ids.includes(id)) ids.push(id);
	}
	if (ids.length === 0) {
		return { ok: false, message: 'Parameter "Session IDs" is required: the sessions this trigger follows' };
	}
	if (ids.length > MAX_FOLLOWED_SESSIONS) {
		return {
			ok: false,
			message: `Parameter "Session IDs": at most ${MAX_FOLLOWED_SESSIONS} sessions per trigger (got ${ids.length})`,
		};
	}
	return { ok: true, ids };
}
