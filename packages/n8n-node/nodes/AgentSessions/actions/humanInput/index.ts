import type { INodeProperties } from 'n8n-workflow';
import * as getPending from './getPending.operation';
import * as respond from './respond.operation';

export { getPending, respond };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['humanInput'] } },
		options: [
			{
				name: 'Get Pending',
				value: 'getPending',
				action: 'Get the pending question of a session',
				description: 'The question a session waits on, normalized and as form fields, to route to a person',
			},
			{
				name: 'Respond',
				value: 'respond',
				action: 'Answer a question of a session',
				description: 'Answer it directly or from a form response',
			},
		],
		default: 'getPending',
	},
	...getPending.description,
	...respond.description,
];
