import type {
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	IDataObject,
	IExecuteFunctions,
	INodeCredentialTestResult,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeApiError, NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import { humanInputFields, humanInputOperations, resourceProperty, sessionFields, sessionOperations } from './descriptions';
import {
	createSession,
	getMessages,
	getPending,
	getSession,
	respond,
	sendSignal,
	waitFor,
} from './operations';

export class AgentSessions implements INodeType {
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
		properties: [resourceProperty, sessionOperations, humanInputOperations, ...sessionFields, ...humanInputFields],
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
		const items = this.getInputData();
		const out: INodeExecutionData[] = [];
		for (let i = 0; i < items.length; i++) {
			try {
				const resource = this.getNodeParameter('resource', i) as string;
				const operation = this.getNodeParameter('operation', i) as string;
				const result = await run.call(this, resource, operation, i);
				for (const json of Array.isArray(result) ? result : [result]) out.push({ json, pairedItem: { item: i } });
			} catch (error) {
				if (this.continueOnFail()) {
					out.push({ json: { error: (error as Error).message }, pairedItem: { item: i } });
					continue;
				}
				// Ours are NodeApiError (the service said no) or NodeOperationError (a bad parameter); anything
				// else (a cancelled execution, a dropped connection) is reported as the node's error.
				const nodeError =
					error instanceof NodeApiError || error instanceof NodeOperationError
						? error
						: new NodeOperationError(this.getNode(), error as Error, { itemIndex: i });
				throw nodeError;
			}
		}
		return [out];
	}
}

async function run(
	this: IExecuteFunctions,
	resource: string,
	operation: string,
	i: number,
): Promise<IDataObject | IDataObject[]> {
	const id = () => {
		const value = String(this.getNodeParameter('sessionId', i, '') ?? '').trim();
		if (!value) throw new NodeOperationError(this.getNode(), 'Parameter "Session ID" is required', { itemIndex: i });
		return value;
	};
	if (resource === 'session') {
		switch (operation) {
			case 'create':
				return createSession.call(this, i);
			case 'createAndWait': {
				const created = await createSession.call(this, i);
				return waitFor.call(this, String(created.sessionId), i);
			}
			case 'get':
				return getSession.call(this, id(), i);
			case 'getMessages':
				return getMessages.call(this, i);
			case 'sendSignal':
				return sendSignal.call(this, i);
			case 'wait':
				return waitFor.call(this, id(), i);
		}
	}
	if (resource === 'humanInput') {
		if (operation === 'getPending') return getPending.call(this, i);
		if (operation === 'respond') return respond.call(this, i);
	}
	throw new NodeOperationError(this.getNode(), `Unknown operation "${operation}" for resource "${resource}"`, {
		itemIndex: i,
	});
}
