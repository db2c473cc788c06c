// One poll of the trigger: read each followed session (core's Sessions over the credential's key, as the
// Agent Sessions node does), tell its event, and fire what wasn't fired before. n8n's schedule calls it.
import type { HumanInputRequest, SessionStatus } from '@agent-sessions/core/pure-without-zod';
import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { toFormFields } from '../AgentSessions/helpers/forms';
import { asJson, pendingRequest, requestOutput } from '../AgentSessions/helpers/sessions';
import { nodeError, sessionsApi } from '../AgentSessions/transport';
import {
	decide,
	eventOf,
	parseSessionIds,
	readMemory,
	type SessionEvent,
	TRIGGER_EVENTS,
	type TriggerEvent,
} from './events';

interface Observed {
	sessionId: string;
	status: SessionStatus;
	request: HumanInputRequest | undefined;
	event: SessionEvent | undefined;
}

/** An event as the workflow gets it: the session, and for a question the question with its form fields. */
function eventItem({ sessionId, status, request }: Observed, event: SessionEvent): INodeExecutionData {
	return {
		json: {
			event: event.event,
			eventId: event.eventId,
			sessionId,
			status: status.status,
			...(request ? { request: requestOutput(request) } : {}),
			session: asJson(status),
		},
	};
}

/** What "Fetch Test Event" shows when no followed session has an event now: a question, marked as a sample. */
function sampleItem(): INodeExecutionData {
	const request: HumanInputRequest = {
		inputId: 'in_sample',
		kind: 'approval',
		prompt: 'Deploy v2.3.1 to production?',
		raw: {},
	};
	const json: IDataObject = {
		sample: true,
		event: 'question',
		eventId: 'question:sample-session:in_sample',
		sessionId: 'sample-session',
		status: 'waiting_human',
		request: { ...asJson(request), formFields: toFormFields(request) as unknown as IDataObject[] },
		session: { sessionId: 'sample-session', status: 'waiting_human', message: 'A sample goal' },
	};
	return { json };
}

function chosenEvents(ctx: IPollFunctions): Set<TriggerEvent> {
	const raw = ctx.getNodeParameter('events', []) as unknown;
	const chosen = new Set((Array.isArray(raw) ? raw : []).filter((e): e is TriggerEvent => TRIGGER_EVENTS.includes(e)));
	if (chosen.size === 0) throw new NodeOperationError(ctx.getNode(), 'Parameter "Events": choose at least one event');
	return chosen;
}

/** Every followed session read now; any failure fails the whole poll, so nothing is remembered half-read. */
async function observe(ctx: IPollFunctions, ids: string[]): Promise<Observed[]> {
	const sessions = await sessionsApi(ctx);
	const observed: Observed[] = [];
	try {
		for (const sessionId of ids) {
			const status = await sessions.get(sessionId);
			const request = await pendingRequest(sessions, status);
			observed.push({ sessionId, status, request, event: eventOf(status, request) });
		}
	} catch (error) {
		throw nodeError(ctx, error);
	}
	return observed;
}

export async function pollSessions(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
	const parsed = parseSessionIds(this.getNodeParameter('sessionIds', ''));
	if (!parsed.ok) throw new NodeOperationError(this.getNode(), parsed.message);
	const chosen = chosenEvents(this);
	const observed = await observe(this, parsed.ids);

	if (this.getMode() === 'manual') {
		// "Fetch Test Event": the latest event there is, a question first (the one to map an answer from),
		// else a sample. Nothing is remembered: a test fetch never uses up an event of the active workflow.
		const now = observed.filter((o) => o.event && chosen.has(o.event.event));
		const shown = now.find((o) => o.event?.event === 'question') ?? now[0];
		return [[shown?.event ? eventItem(shown, shown.event) : sampleItem()]];
	}

	const data = this.getWorkflowStaticData('node');
	const { fire, memory } = decide(
		readMemory(data),
		observed.map(({ sessionId, event }) => ({ sessionId, event })),
		chosen,
	);
	data.started = memory.started;
	data.fired = memory.fired;
	if (fire.length === 0) return null;
	const byId = new Map(observed.map((o) => [o.sessionId, o]));
	return [fire.map(({ sessionId, event }) => eventItem(byId.get(sessionId) as Observed, event))];
}
