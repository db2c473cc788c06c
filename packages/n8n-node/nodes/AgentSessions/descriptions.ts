import type { INodeProperties } from 'n8n-workflow';

const onSession = (...operation: string[]) => ({ show: { resource: ['session'], operation } });
const onHumanInput = (...operation: string[]) => ({
	show: { resource: ['humanInput'], operation },
});

export const resourceProperty: INodeProperties = {
	displayName: 'Resource',
	name: 'resource',
	type: 'options',
	noDataExpression: true,
	options: [
		{ name: 'Session', value: 'session' },
		{ name: 'Human Input', value: 'humanInput' },
	],
	default: 'session',
};

export const sessionOperations: INodeProperties = {
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
};

export const humanInputOperations: INodeProperties = {
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
			description: 'The question a session waits on, normalized, to route to a person',
		},
		{ name: 'Respond', value: 'respond', action: 'Answer a question of a session' },
	],
	default: 'getPending',
};

const waitFields = (show: { show: Record<string, string[]> }): INodeProperties[] => [
	{
		displayName: 'Wait Until',
		name: 'waitUntil',
		type: 'options',
		displayOptions: show,
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
		displayOptions: show,
		typeOptions: { minValue: 1 },
		default: 5,
	},
	{
		displayName: 'Max Wait (Seconds)',
		name: 'maxWaitSeconds',
		type: 'number',
		displayOptions: show,
		typeOptions: { minValue: 1 },
		default: 600,
		description: 'After this long the step returns with outcome "timed_out"',
	},
];

export const sessionFields: INodeProperties[] = [
	{
		displayName: 'Session ID',
		name: 'sessionId',
		type: 'string',
		required: true,
		default: '',
		displayOptions: onSession('get', 'getMessages', 'sendSignal', 'wait'),
	},
	{
		displayName: 'Goal',
		name: 'goal',
		type: 'string',
		required: true,
		default: '',
		typeOptions: { rows: 3 },
		description: 'What the agent should achieve',
		displayOptions: onSession('create', 'createAndWait'),
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		displayOptions: onSession('create', 'createAndWait'),
		options: [
			{
				displayName: 'Budget (USD)',
				name: 'budget',
				type: 'number',
				typeOptions: { minValue: 0, numberPrecision: 2 },
				default: 5,
				description: 'The session stops in cost_limit when it has spent this much',
			},
			{
				displayName: 'Context (JSON)',
				name: 'context',
				type: 'json',
				default: '{}',
				description: 'Any JSON object, passed to the agent as is',
			},
			{
				displayName: 'Extra Guardrails (JSON)',
				name: 'extraGuardrails',
				type: 'json',
				default: '{}',
				description: 'More guardrail keys the service accepts, as a JSON object',
			},
			{
				displayName: 'Max Iterations',
				name: 'maxIterations',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: 50,
				description: 'Per round',
			},
		],
	},
	...waitFields(onSession('wait', 'createAndWait')),
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
		displayOptions: onSession('getMessages'),
	},
	{
		displayName: 'Limit',
		name: 'limit',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: 200 },
		default: 50,
		description: 'Max number of results to return',
		displayOptions: {
			show: { resource: ['session'], operation: ['getMessages'], returnAll: [false] },
		},
	},
	{
		displayName: 'Options',
		name: 'messageOptions',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: onSession('getMessages'),
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
	{
		displayName: 'Signal',
		name: 'signal',
		type: 'options',
		displayOptions: onSession('sendSignal'),
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
		displayOptions: {
			show: { resource: ['session'], operation: ['sendSignal'], signal: ['redirect'] },
		},
	},
	{
		displayName: 'Options',
		name: 'signalOptions',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: {
			show: { resource: ['session'], operation: ['sendSignal'], signal: ['resume'] },
		},
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
		displayOptions: {
			show: { resource: ['session'], operation: ['sendSignal'], signal: ['pause', 'cancel'] },
		},
	},
];

export const humanInputFields: INodeProperties[] = [
	{
		displayName: 'Session ID',
		name: 'sessionId',
		type: 'string',
		required: true,
		default: '',
		displayOptions: onHumanInput('getPending', 'respond'),
	},
	{
		displayName: 'Input ID',
		name: 'inputId',
		type: 'string',
		default: '',
		description: 'The question to answer; empty answers the one the session waits on now',
		displayOptions: onHumanInput('respond'),
	},
	{
		displayName: 'Answer Type',
		name: 'answerType',
		type: 'options',
		displayOptions: onHumanInput('respond'),
		options: [
			{
				name: 'Answers',
				value: 'answers',
				description: 'One answer per question, as JSON',
			},
			{
				name: 'Approval',
				value: 'approval',
				description: 'Approve or reject, with an optional reason',
			},
			{
				name: 'Choice',
				value: 'choice',
				description: 'One option ID',
			},
			{
				name: 'Choices',
				value: 'choices',
				description: 'Several option IDs',
			},
			{
				name: 'Free Text',
				value: 'freeText',
			},
		],
		default: 'approval',
	},
	{
		displayName: 'Approved',
		name: 'approved',
		type: 'boolean',
		default: true,
		description: 'Whether the agent may go ahead',
		displayOptions: {
			show: { resource: ['humanInput'], operation: ['respond'], answerType: ['approval'] },
		},
	},
	{
		displayName: 'Reason',
		name: 'reason',
		type: 'string',
		default: '',
		description: 'Why, sent to the agent as free text',
		displayOptions: {
			show: { resource: ['humanInput'], operation: ['respond'], answerType: ['approval'] },
		},
	},
	{
		displayName: 'Choice ID',
		name: 'choiceId',
		type: 'string',
		default: '',
		required: true,
		displayOptions: {
			show: { resource: ['humanInput'], operation: ['respond'], answerType: ['choice'] },
		},
	},
	{
		displayName: 'Choice IDs',
		name: 'choiceIds',
		type: 'string',
		default: '',
		required: true,
		description: 'Comma-separated option IDs',
		displayOptions: {
			show: { resource: ['humanInput'], operation: ['respond'], answerType: ['choices'] },
		},
	},
	{
		displayName: 'Text',
		name: 'freeText',
		type: 'string',
		typeOptions: { rows: 3 },
		default: '',
		required: true,
		displayOptions: {
			show: { resource: ['humanInput'], operation: ['respond'], answerType: ['freeText'] },
		},
	},
	{
		displayName: 'Answers (JSON)',
		name: 'answers',
		type: 'json',
		default: '{}',
		required: true,
		description: 'An object from question ID to a text, an option ID or an array of option IDs',
		displayOptions: {
			show: { resource: ['humanInput'], operation: ['respond'], answerType: ['answers'] },
		},
	},
];