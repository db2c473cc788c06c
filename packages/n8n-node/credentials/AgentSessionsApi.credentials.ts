import type { IAuthenticateGeneric, ICredentialType, INodeProperties } from 'n8n-workflow';

// Tested by the node (`testedBy: 'agentSessionsApiTest'`): the contract has no endpoint that answers 2xx
// without a session, so the test reads one that can't exist: 404 means the key was accepted, 401 not.

export class AgentSessionsApi implements ICredentialType {
	name = 'agentSessionsApi';

	displayName = 'Agent Sessions API';

	icon = { light: 'file:../nodes/AgentSessions/agentSessions.svg', dark: 'file:../nodes/AgentSessions/agentSessions.dark.svg' } as const;

	documentationUrl = 'https://github.com/agent-sessions/agent-sessions/tree/main/packages/n8n-node#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: 'http://127.0.0.1:4010',
			placeholder: 'https://agents.example.com',
			description: 'Where the Agent Session Service is, without /v1',
			required: true,
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
		},
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				Authorization: '=Bearer {{$credentials.apiKey}}',
			},
		},
	};
}
