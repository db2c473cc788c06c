import type { INodeProperties } from 'n8n-workflow';

export const sessionIdProperty: INodeProperties = {
	displayName: 'Session ID',
	name: 'sessionId',
	type: 'string',
	required: true,
	default: '',
};

/** How Wait and Create and Wait wait: shared, each operation file shows them for itself. */
export const waitProperties: INodeProperties[] = [
	{
		displayName: 'Wait Until',
		name: 'waitUntil',
		type: 'options',
		options: [
			{ name: 'Finished', value: 'finished', description: 'Completed, cancelled or failed' },
			{
				name: 'Needs a Person or Finished',
				value: 'needsPerson',
				description: 'Also return when it waits on an answer, a budget or a resume',
			},
		],
		default: 'needsPerson',
	},
	{
		displayName: 'Poll Interval (Seconds)',
		name: 'pollIntervalSeconds',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 5,
	},
	{
		displayName: 'Max Wait (Seconds)',
		name: 'maxWaitSeconds',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 600,
		description:
			'After this long the step returns with outcome "timed_out". Keep it short and loop through n8n\'s Wait node to wait hours without holding a worker.',
	},
	{
		displayName: 'Options',
		name: 'waitOptions',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Cancel Session When Stopped',
				name: 'cancelOnStop',
				type: 'boolean',
				default: false,
				description:
					'Whether stopping the n8n execution during the wait also cancels the session (the output then says outcome "execution_stopped")',
			},
		],
	},
];
