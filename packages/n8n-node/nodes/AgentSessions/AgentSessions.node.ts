import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import * as humanInput from './actions/humanInput';
import { router } from './actions/router';
import * as session from './actions/session';

export class AgentSessions implements INodeType {
	// n8n's layout for versioned nodes (one file per operation under actions/, a router), with the
	// description kept here: n8n's community-node lint reads the icon from this file. The credential test is the
	// credential's own (declarative) `test`.
	description: INodeTypeDescription = {
		displayName: 'Agent Sessions',
		name: 'agentSessions',
		icon: { light: 'file:agentSessions.svg', dark: 'file:agentSessions.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		description: 'Run autonomous agents: create sessions, steer them, answer their questions, wait for results',
		defaults: { name: 'Agent Sessions' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'agentSessionsApi', required: true }],
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Session', value: 'session' },
					{ name: 'Human Input', value: 'humanInput' },
				],
				default: 'session',
			},
			...session.description,
			...humanInput.description,
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return router.call(this);
	}
}
