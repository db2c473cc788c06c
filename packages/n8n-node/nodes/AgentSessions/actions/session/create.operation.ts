import { type CreateSessionRequest, checkStartInput, type Sessions } from '@agent-sessions/core/pure-without-zod';
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { failOnProblems, jsonObject } from '../../helpers/parameters';
import { asJson } from '../../helpers/sessions';
import { sessionsApi } from '../../transport';

export const properties: INodeProperties[] = [
	{
		displayName: 'Goal',
		name: 'goal',
		type: 'string',
		required: true,
		default: '',
		typeOptions: { rows: 3 },
		description: 'What the agent should achieve',
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
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
];

const displayOptions = { show: { resource: ['session'], operation: ['create'] } };

export const description = updateDisplayOptions(displayOptions, properties);

const LABELS = { goal: 'Goal', budget: 'Budget (USD)', maxIterations: 'Max Iterations' };

/** POST /v1/sessions from the node's parameters (shared with Create and Wait); the goal goes as typed. */
export async function createSession(this: IExecuteFunctions, sessions: Sessions, i: number): Promise<IDataObject> {
	const goal = this.getNodeParameter('goal', i, '') as string;
	const fields = this.getNodeParameter('additionalFields', i, {}) as IDataObject;
	failOnProblems(this, i, checkStartInput({ goal, budget: fields.budget, maxIterations: fields.maxIterations }), LABELS);
	const guardrails: IDataObject = {};
	if (fields.extraGuardrails !== undefined) {
		Object.assign(guardrails, jsonObject(this, fields.extraGuardrails, 'Extra Guardrails (JSON)', i));
	}
	if (fields.budget !== undefined) guardrails.maxCostPerSession = fields.budget;
	if (fields.maxIterations !== undefined) guardrails.maxIterations = fields.maxIterations;
	const body: CreateSessionRequest = { goal };
	if (fields.context !== undefined) body.context = jsonObject(this, fields.context, 'Context (JSON)', i);
	// Core checks the guardrails' types before sending (a ValidationError names the field).
	if (Object.keys(guardrails).length > 0) body.guardrails = guardrails as CreateSessionRequest['guardrails'];
	return asJson(await sessions.create(body));
}

export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject> {
	return createSession.call(this, await sessionsApi(this), i);
}
