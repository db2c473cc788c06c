// Core's pure modules are bundled into dist at build time (scripts/build.mjs): the published package
// has no runtime dependency but n8n-workflow.
// eslint-disable-next-line @n8n/community-nodes/no-restricted-imports
import {
	type AnswerInput,
	applyPage,
	createCursor,
	type HumanInputRequest,
	isTerminalStatus,
	nextQuery,
	parseHumanInput,
	validateAnswer,
} from '@agent-sessions/core/pure';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError, sleepWithAbort } from 'n8n-workflow';
import { type ApiCall, apiRequest, sessionPath } from './transport';

type Session = IDataObject & { sessionId: string; status: string; rounds?: unknown[] };
type Message = IDataObject & { roundId: string };
type Page = { messages: Message[]; pagination: { hasMore: boolean; lastRoundId: string | null } };

const NEEDS_PERSON = new Set(['waiting_human', 'paused']);

function fail(ctx: IExecuteFunctions, itemIndex: number, message: string): never {
	throw new NodeOperationError(ctx.getNode(), message, { itemIndex });
}

function text(ctx: IExecuteFunctions, name: string, label: string, itemIndex: number): string {
	const value = String(ctx.getNodeParameter(name, itemIndex, '') ?? '').trim();
	if (value === '') fail(ctx, itemIndex, `Parameter "${label}" is required`);
	return value;
}

function jsonObject(ctx: IExecuteFunctions, raw: unknown, label: string, itemIndex: number): IDataObject {
	let value = raw;
	if (typeof raw === 'string') {
		if (raw.trim() === '') return {};
		try {
			value = JSON.parse(raw);
		} catch (error) {
			fail(ctx, itemIndex, `Parameter "${label}" is not valid JSON: ${(error as Error).message}`);
		}
	}
	if (value === null || typeof value !== 'object' || Array.isArray(value)) {
		fail(ctx, itemIndex, `Parameter "${label}" must be a JSON object`);
	}
	return value as IDataObject;
}

function positive(ctx: IExecuteFunctions, value: unknown, label: string, itemIndex: number, integer = false): number {
	const n = Number(value);
	if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
		fail(ctx, itemIndex, `Parameter "${label}" must be a ${integer ? 'whole number' : 'number'} above 0 (got ${String(value)})`);
	}
	return n;
}

export async function createSession(this: IExecuteFunctions, i: number): Promise<IDataObject> {
	const goal = text(this, 'goal', 'Goal', i);
	const fields = this.getNodeParameter('additionalFields', i, {}) as IDataObject;
	const guardrails: IDataObject = {};
	if (fields.extraGuardrails !== undefined) {
		Object.assign(guardrails, jsonObject(this, fields.extraGuardrails, 'Extra Guardrails (JSON)', i));
	}
	if (fields.budget !== undefined) guardrails.maxCostPerSession = positive(this, fields.budget, 'Budget (USD)', i);
	if (fields.maxIterations !== undefined) {
		guardrails.maxIterations = positive(this, fields.maxIterations, 'Max Iterations', i, true);
	}
	const body: IDataObject = { goal };
	if (fields.context !== undefined) body.context = jsonObject(this, fields.context, 'Context (JSON)', i);
	if (Object.keys(guardrails).length > 0) body.guardrails = guardrails;
	return apiRequest.call<IExecuteFunctions, [ApiCall, number], Promise<IDataObject>>(
		this,
		{ method: 'POST', path: '/v1/sessions', body },
		i,
	);
}

export function getSession(this: IExecuteFunctions, sessionId: string, i: number): Promise<Session> {
	return apiRequest.call(this, { method: 'GET', path: sessionPath(sessionId) }, i) as Promise<Session>;
}

/** Every message once: a round may grow while read, so the cursor re-reads the newest round (core). */
async function allMessages(this: IExecuteFunctions, sessionId: string, i: number, after?: string): Promise<IDataObject[]> {
	let cursor = createCursor();
	if (after) cursor = { ...cursor, afterRoundId: after };
	const out: IDataObject[] = [];
	for (let page = 0; page < 1000; page++) {
		const result = (await apiRequest.call(
			this,
			{ method: 'GET', path: sessionPath(sessionId, '/messages'), qs: { limit: 200, ...nextQuery(cursor) } },
			i,
		)) as Page;
		const applied = applyPage(cursor, result);
		cursor = applied.cursor;
		for (const m of applied.fresh) out.push({ ...m.message, key: m.key });
		if (!result.pagination.hasMore) break;
	}
	return out;
}

export async function getMessages(this: IExecuteFunctions, i: number): Promise<IDataObject[]> {
	const sessionId = text(this, 'sessionId', 'Session ID', i);
	const options = this.getNodeParameter('messageOptions', i, {}) as IDataObject;
	const after = typeof options.after === 'string' && options.after.trim() !== '' ? options.after.trim() : undefined;
	if (this.getNodeParameter('returnAll', i, false) as boolean) return allMessages.call(this, sessionId, i, after);
	const limit = Number(this.getNodeParameter('limit', i, 50));
	if (!Number.isInteger(limit) || limit < 1 || limit > 200) {
		fail(this, i, `Parameter "Limit" must be a whole number from 1 to 200 (got ${limit})`);
	}
	const page = (await apiRequest.call(
		this,
		{ method: 'GET', path: sessionPath(sessionId, '/messages'), qs: { limit, ...(after ? { after } : {}) } },
		i,
	)) as Page;
	return page.messages;
}

export async function sendSignal(this: IExecuteFunctions, i: number): Promise<IDataObject> {
	const sessionId = text(this, 'sessionId', 'Session ID', i);
	const type = this.getNodeParameter('signal', i) as string;
	const body: IDataObject = { type };
	if (type === 'redirect') body.message = text(this, 'message', 'Message', i);
	if (type === 'resume') {
		const options = this.getNodeParameter('signalOptions', i, {}) as IDataObject;
		if (options.newBudget !== undefined) body.newBudget = positive(this, options.newBudget, 'New Budget (USD)', i);
		if (typeof options.message === 'string' && options.message.trim() !== '') body.message = options.message;
	}
	if (type === 'pause' || type === 'cancel') {
		const reason = String(this.getNodeParameter('reason', i, '') ?? '').trim();
		if (reason) body.reason = reason;
	}
	return apiRequest.call<IExecuteFunctions, [ApiCall, number], Promise<IDataObject>>(
		this,
		{ method: 'POST', path: sessionPath(sessionId, '/signal'), body },
		i,
	);
}

/** The question a session waits on: from its rounds, else from the newest round's messages. */
export async function pendingRequest(
	this: IExecuteFunctions,
	session: Session,
	i: number,
): Promise<HumanInputRequest | undefined> {
	if (session.status !== 'waiting_human') return undefined;
	const rounds = Array.isArray(session.rounds) ? session.rounds : [];
	let found: HumanInputRequest | undefined;
	const newest = rounds[rounds.length - 1];
	if (newest) found = parseHumanInput(newest);
	if (found) return found;
	const previous = rounds[rounds.length - 2] as { roundId?: unknown } | undefined;
	const after = typeof previous?.roundId === 'string' ? previous.roundId : undefined;
	const messages = await allMessages.call(this, session.sessionId, i, after);
	for (const message of messages) found = parseHumanInput(message) ?? found;
	return found;
}

export async function getPending(this: IExecuteFunctions, i: number): Promise<IDataObject> {
	const sessionId = text(this, 'sessionId', 'Session ID', i);
	const session = await getSession.call(this, sessionId, i);
	const request = await pendingRequest.call(this, session, i);
	return request
		? { pending: true, sessionId, status: session.status, request: request as unknown as IDataObject }
		: { pending: false, sessionId, status: session.status };
}

function answerInput(ctx: IExecuteFunctions, i: number): AnswerInput {
	const type = ctx.getNodeParameter('answerType', i) as string;
	switch (type) {
		case 'approval': {
			const reason = String(ctx.getNodeParameter('reason', i, '') ?? '').trim();
			return { approved: ctx.getNodeParameter('approved', i, true) as boolean, ...(reason ? { reason } : {}) };
		}
		case 'choice':
			return { choiceId: text(ctx, 'choiceId', 'Choice ID', i) };
		case 'choices':
			return {
				choiceIds: text(ctx, 'choiceIds', 'Choice IDs', i)
					.split(',')
					.map((s) => s.trim())
					.filter(Boolean),
			};
		case 'freeText':
			return { freeText: text(ctx, 'freeText', 'Text', i) };
		default:
			return { answers: jsonObject(ctx, ctx.getNodeParameter('answers', i, '{}'), 'Answers (JSON)', i) };
	}
}

export async function respond(this: IExecuteFunctions, i: number): Promise<IDataObject> {
	const sessionId = text(this, 'sessionId', 'Session ID', i);
	const input = answerInput(this, i);
	const givenInputId = String(this.getNodeParameter('inputId', i, '') ?? '').trim();
	const session = await getSession.call(this, sessionId, i);
	const request = await pendingRequest.call(this, session, i);
	if (!request && !givenInputId) {
		fail(this, i, `Session ${sessionId} is not waiting on a question (status: ${session.status}); set "Input ID" to answer a specific one`);
	}
	const inputId = givenInputId || (request as HumanInputRequest).inputId;
	let body: IDataObject;
	if (request && request.inputId === inputId) {
		// Checked against the question before sending: the service never sees an answer we know is wrong.
		const checked = validateAnswer(request, input);
		if (!checked.ok) {
			fail(this, i, `The answer does not fit the question "${request.prompt}": ${checked.issues.map((x) => `${x.field}: ${x.message}`).join('; ')}`);
		}
		body = checked.answer as IDataObject;
	} else {
		const { reason, ...rest } = input;
		body = { ...rest, ...(reason ? { freeText: reason } : {}) } as IDataObject;
	}
	const ack = await apiRequest.call<IExecuteFunctions, [ApiCall, number], Promise<IDataObject>>(
		this,
		{ method: 'POST', path: sessionPath(sessionId, `/human-input/${encodeURIComponent(inputId)}`), body },
		i,
	);
	return { sessionId, inputId, answer: body, ...ack };
}

export type WaitOutcome = 'finished' | 'needs_person' | 'cost_limit' | 'timed_out';

/** Polls until the session ends (or needs a person, when asked), honouring the execution's cancel signal. */
export async function waitFor(this: IExecuteFunctions, sessionId: string, i: number): Promise<IDataObject> {
	const until = this.getNodeParameter('waitUntil', i, 'needsPerson') as string;
	const intervalMs = positive(this, this.getNodeParameter('pollIntervalSeconds', i, 5), 'Poll Interval (Seconds)', i) * 1000;
	const maxWaitMs = positive(this, this.getNodeParameter('maxWaitSeconds', i, 600), 'Max Wait (Seconds)', i) * 1000;
	const signal = this.getExecutionCancelSignal();
	const started = Date.now();
	for (;;) {
		const session = await getSession.call(this, sessionId, i);
		const waited = Math.round((Date.now() - started) / 1000);
		const result = (outcome: WaitOutcome, extra: IDataObject = {}) => ({
			outcome,
			sessionId,
			status: session.status,
			waitedSeconds: waited,
			...extra,
			session,
		});
		if (isTerminalStatus(session.status)) return result('finished');
		if (until === 'needsPerson') {
			if (session.status === 'cost_limit') return result('cost_limit');
			if (NEEDS_PERSON.has(session.status)) {
				const request = await pendingRequest.call(this, session, i);
				return result('needs_person', request ? { request: request as unknown as IDataObject } : {});
			}
		}
		const left = maxWaitMs - (Date.now() - started);
		if (left <= 0) return result('timed_out');
		// An unknown status is waited on like any other: never a busy loop.
		await sleepWithAbort(Math.min(intervalMs, left), signal);
	}
}
