import type { INodeProperties } from 'n8n-workflow';
import * as create from './create.operation';
import * as createAndWait from './createAndWait.operation';
import * as get from './get.operation';
import * as getMessages from './getMessages.operation';
import * as sendSignal from './sendSignal.operation';
import * as wait from './wait.operation';

export { create, createAndWait, get, getMessages, sendSignal, wait };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['session'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				action: 'Create a session',
				description: 'Start an agent on a goal',
			},
			{
				name: 'Create and Wait',
				value: 'createAndWait',
				action: 'Create a session and wait',
				description: 'Start an agent and wait until it finishes or needs a person',
			},
			{
				name: 'Get',
				value: 'get',
				action: 'Get a session',
				description: 'Status, cost, rounds and report',
			},
			{ name: 'Get Messages', value: 'getMessages', action: 'Get messages of a session' },
			{
				name: 'Send Signal',
				value: 'sendSignal',
				action: 'Send a signal to a session',
				description: 'Pause, resume, cancel or redirect',
			},
			{
				name: 'Wait',
				value: 'wait',
				action: 'Wait for a session',
				description: 'Wait until it finishes or needs a person',
			},
		],
		default: 'create',
	},
	...create.description,
	...createAndWait.description,
	...get.description,
	...getMessages.description,
	...sendSignal.description,
	...wait.description,
];
