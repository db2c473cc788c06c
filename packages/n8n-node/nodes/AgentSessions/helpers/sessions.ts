// Waiting on a session and finding the question it waits on, on core's Sessions (one implementation of
// the contract: its readers, cursor, wait loop and needs-person rule).
import {
	type HumanInputRequest,
	isTerminalStatus,
	parseHumanInput,
	roundsInfoOf,
	type Sessions,
	type SessionStatus,
	WaitTimeoutError,
} from '@agent-sessions/core/pure-without-zod';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { nodeError, sessionsApi } from '../transport';
import { toFormFields } from './forms';
import { positive } from './parameters';

/** A value core has read and checked, as an n8n item's JSON. */
export const asJson = (value: object): IDataObject => ({ ...value }) as IDataObject;

/**
 * The question a session waits on. Any round may hold it (with subagents several rounds are open, and the
 * question need not be in the newest), newest first; else the messages, read once each by core's cursor.
 */
export async function pendingRequest(
	sessions: Sessions,
	status: SessionStatus,
	signal?: AbortSignal,
): Promise<HumanInputRequest | undefined> {
	if (status.status !== 'waiting_human') return undefined;
	for (const round of [...status.rounds].reverse()) {
		const found = parseHumanInput(round);
		if (found) return found;
	}
	let found: HumanInputRequest | undefined;
	const messages = sessions.listMessages(status.sessionId, {
		rounds: roundsInfoOf(status.rounds),
		...(signal ? { signal } : {}),
	});
	for await (const keyed of messages) found = parseHumanInput(keyed.message) ?? found;
	return found;
}

/** The question as an output field: normalized, plus the n8n form fields that ask it. */
export function requestOutput(request: HumanInputRequest): IDataObject {
	return { ...asJson(request), formFields: toFormFields(request) as unknown as IDataObject[] };
}

export type WaitOutcome = 'finished' | 'needs_person' | 'cost_limit' | 'timed_out' | 'execution_stopped';

/**
 * Core's wait loop with the node's parameters, its outcome told for an If or Switch node. With "Cancel
 * Session When Stopped", a stopped execution cancels the session and says so.
 */
export async function waitFor(
	this: IExecuteFunctions,
	sessions: Sessions,
	sessionId: string,
	i: number,
): Promise<IDataObject> {
	const until = this.getNodeParameter('waitUntil', i, 'needsPerson') as string;
	const intervalMs =
		positive(this, this.getNodeParameter('pollIntervalSeconds', i, 5), 'Poll Interval (Seconds)', i) * 1000;
	const timeoutMs = positive(this, this.getNodeParameter('maxWaitSeconds', i, 600), 'Max Wait (Seconds)', i) * 1000;
	const options = this.getNodeParameter('waitOptions', i, {}) as IDataObject;
	const signal = this.getExecutionCancelSignal();
	const started = Date.now();
	const waited = () => Math.round((Date.now() - started) / 1000);
	const result = (outcome: WaitOutcome, session: SessionStatus, extra: IDataObject = {}): IDataObject => ({
		outcome,
		sessionId,
		status: session.status,
		waitedSeconds: waited(),
		...extra,
		session: asJson(session),
	});
	let session: SessionStatus;
	try {
		session = await sessions.waitForCompletion(sessionId, {
			until: until === 'needsPerson' ? 'needs-person' : 'finished',
			intervalMs,
			timeoutMs,
			...(signal ? { signal } : {}),
		});
	} catch (error) {
		if (error instanceof WaitTimeoutError) return result('timed_out', error.lastStatus);
		if (!signal?.aborted || options.cancelOnStop !== true) throw nodeError(this, error, i);
		// The execution was stopped while waiting: the session must not run on unwatched. (No signal: the
		// execution's is aborted, and this request must still go out.)
		const ack = await (await sessionsApi(this, { afterStop: true })).cancel(sessionId, {
			reason: 'The n8n execution waiting on this session was stopped',
		});
		// n8n keeps no output of a stopped execution's step: its log says what happened too.
		this.logger?.info(`Agent Sessions: the execution was stopped, so session ${sessionId} was cancelled`, {
			sessionId,
		});
		return {
			outcome: 'execution_stopped',
			sessionId,
			sessionCancelled: true,
			status: 'cancelled',
			waitedSeconds: waited(),
			cancel: asJson(ack),
		};
	}
	if (isTerminalStatus(session.status)) return result('finished', session);
	if (session.status === 'cost_limit') return result('cost_limit', session);
	const request = await pendingRequest(sessions, session, signal);
	return result('needs_person', session, request ? { request: requestOutput(request) } : {});
}
