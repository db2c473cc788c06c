import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { fail, sessionId } from '../../helpers/parameters';
import { asJson } from '../../helpers/sessions';
import { sessionsApi } from '../../transport';
import { sessionIdProperty } from '../common.descriptions';

const properties: INodeProperties[] = [
	sessionIdProperty,
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
	},
	{
		displayName: 'Limit',
		name: 'limit',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 50,
		description: 'Max number of results to return',
		displayOptions: { show: { returnAll: [false] } },
	},
	{
		displayName: 'Options',
		name: 'messageOptions',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'After Round ID',
				name: 'after',
				type: 'string',
				default: '',
				description: 'Only messages of rounds after this one',
			},
		],
	},
];

const displayOptions = { show: { resource: ['session'], operation: ['getMessages'] } };

export const description = updateDisplayOptions(displayOptions, properties);

/** The contract's largest messages page (`limit`, maximum 200). */
const MAX_PAGE_SIZE = 200;

export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject[]> {
	const id = sessionId(this, i);
	const options = this.getNodeParameter('messageOptions', i, {}) as IDataObject;
	const after = typeof options.after === 'string' && options.after.trim() !== '' ? options.after.trim() : undefined;
	const returnAll = this.getNodeParameter('returnAll', i, false) as boolean;
	const limit = Number(this.getNodeParameter('limit', i, 50));
	if (!returnAll && !(Number.isInteger(limit) && limit >= 1)) {
		fail(this, i, `Parameter "Limit" must be a whole number of at least 1 (got ${limit})`);
	}
	const sessions = await sessionsApi(this);
	const signal = this.getExecutionCancelSignal();
	// Every message once, keyed by (round, position), even while rounds grow or interleave and when a page
	// comes back short or empty (core's cursor); with a Limit, the first that many, in pages of at most the
	// contract's 200.
	const out: IDataObject[] = [];
	const messages = sessions.listMessages(id, {
		...(after ? { after } : {}),
		...(returnAll ? {} : { pageSize: Math.min(limit, MAX_PAGE_SIZE) }),
		...(signal ? { signal } : {}),
	});
	for await (const keyed of messages) {
		out.push({ ...asJson(keyed.message), key: keyed.key });
		if (!returnAll && out.length >= limit) break;
	}
	return out;
}
