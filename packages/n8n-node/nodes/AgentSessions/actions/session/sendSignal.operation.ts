import { checkBudget, checkRedirect, type SignalRequest } from '@agent-sessions/core/pure-without-zod';
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { failOnProblems, sessionId } from '../../helpers/parameters';
import { asJson } from '../../helpers/sessions';
import { sessionsApi } from '../../transport';
import { sessionIdProperty } from '../common.descriptions';

const properties: INodeProperties[] = [
	sessionIdProperty,
	{
		displayName: 'Signal',
		name: 'signal',
		type: 'options',
		options: [
			{ name: 'Pause', value: 'pause' },
			{ name: 'Resume', value: 'resume' },
			{ name: 'Cancel', value: 'cancel' },
			{ name: 'Redirect', value: 'redirect' },
		],
		default: 'pause',
	},
	{
		displayName: 'Message',
		name: 'message',
		type: 'string',
		typeOptions: { rows: 2 },
		default: '',
		required: true,
		description: 'The new direction for the agent',
		displayOptions: { show: { signal: ['redirect'] } },
	},
	{
		displayName: 'Options',
		name: 'signalOptions',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: { show: { signal: ['resume'] } },
		options: [
			{
				displayName: 'New Budget (USD)',
				name: 'newBudget',
				type: 'number',
				typeOptions: { minValue: 0, numberPrecision: 2 },
				default: 10,
				description: 'Required to resume a session stopped by its budget: more than it has spent',
			},
			{
				displayName: 'Message',
				name: 'message',
				type: 'string',
				default: '',
				description: 'Context for the agent as it resumes',
			},
		],
	},
	{
		displayName: 'Reason',
		name: 'reason',
		type: 'string',
		default: '',
		description: 'An optional note kept with the signal',
		displayOptions: { show: { signal: ['pause', 'cancel'] } },
	},
];

const displayOptions = { show: { resource: ['session'], operation: ['sendSignal'] } };

export const description = updateDisplayOptions(displayOptions, properties);

/** What people type goes as typed (no trimming); only empty optional texts are left out. */
const given = (value: unknown): string | undefined =>
	typeof value === 'string' && value.trim() !== '' ? value : undefined;

export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject> {
	const id = sessionId(this, i);
	const type = this.getNodeParameter('signal', i) as SignalRequest['type'];
	const body: IDataObject = { type };
	if (type === 'redirect') {
		const message = this.getNodeParameter('message', i, '') as string;
		failOnProblems(this, i, checkRedirect(message), { message: 'Message' });
		body.message = message;
	}
	if (type === 'resume') {
		const options = this.getNodeParameter('signalOptions', i, {}) as IDataObject;
		if (options.newBudget !== undefined) {
			failOnProblems(this, i, checkBudget(options.newBudget), { newBudget: 'New Budget (USD)' });
			body.newBudget = options.newBudget;
		}
		const message = given(options.message);
		if (message !== undefined) body.message = message;
	}
	if (type === 'pause' || type === 'cancel') {
		const reason = given(this.getNodeParameter('reason', i, ''));
		if (reason !== undefined) body.reason = reason;
	}
	const sessions = await sessionsApi(this);
	return asJson(await sessions.signal(id, body as unknown as SignalRequest));
}
