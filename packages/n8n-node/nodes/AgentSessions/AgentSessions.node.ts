import type {
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	IExecuteFunctions,
	INodeCredentialTestResult,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import * as humanInput from './actions/humanInput';
import { router } from './actions/router';
import * as session from './actions/session';

export class AgentSessions implements INodeType {
	// n8n's layout for versioned nodes (one file per operation under actions/, a router), with the
	// description kept here: n8n's community-node lint reads the icon and credential test from this file.
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
		credentials: [{ name: 'agentSessionsApi', required: true, testedBy: 'agentSessionsApiTest' }],
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

	methods = {
		credentialTest: {
			// The contract has no endpoint that answers 2xx without a session: read one that can't exist.
			// 404 means the key was accepted; 401/403 that it was not.
			async agentSessionsApiTest(
				this: ICredentialTestFunctions,
				credential: ICredentialsDecrypted,
			): Promise<INodeCredentialTestResult> {
				const data = credential.data ?? {};
				const baseUrl = String(data.baseUrl ?? '').replace(/\/+$/, '');
				try {
					// Credential tests get only `request` in n8n-workflow 2.x (ICredentialTestFunctions): no httpRequest.
					// eslint-disable-next-line @n8n/community-nodes/no-deprecated-workflow-functions
					await this.helpers.request({
						method: 'GET',
						uri: `${baseUrl}/v1/sessions/credential-test`,
						headers: { Authorization: `Bearer ${String(data.apiKey ?? '')}` },
						json: true,
					});
					return { status: 'OK', message: 'Connection successful' };
				} catch (error) {
					const status = (error as { statusCode?: number }).statusCode;
					if (status === 404) return { status: 'OK', message: 'Connection successful' };
					if (status === 401) return { status: 'Error', message: 'The API key was refused (401)' };
					if (status === 403) return { status: 'Error', message: 'The API key may not read sessions (403)' };
					return {
						status: 'Error',
						message: `Could not reach the Agent Session Service at ${baseUrl}${status ? ` (HTTP ${status})` : ''}`,
					};
				}
			},
		},
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return router.call(this);
	}
}
