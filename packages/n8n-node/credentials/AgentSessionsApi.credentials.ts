import type {
	IAuthenticateGeneric,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

// The credential test is declarative, as n8n's verification wants (a programmatic test could only use
// the deprecated `helpers.request`). The contract has no endpoint that answers 2xx to a key alone, and a
// declarative test passes only on 2xx, fails on a status only by throwing, and can tell bodies apart only
// by an exact value. So it reads a session that can't exist with status errors ignored: a good key gets
// 404 (passes), a bad one 401 with the service's own words for it (fails, saying so). An unreachable
// service fails as a network error.
const REFUSED_KEY = 'The API key was refused (401): check it, and that it belongs to this service';

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

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl}}',
			url: '/v1/sessions/credential-test',
			method: 'GET',
			ignoreHttpStatusErrors: true,
		},
		rules: [
			{ type: 'responseSuccessBody', properties: { key: 'error', value: 'invalid API key', message: REFUSED_KEY } },
			{
				type: 'responseSuccessBody',
				properties: {
					key: 'error',
					value: 'missing API key: send Authorization: Bearer <key> or X-Service-Key: <key>',
					message: REFUSED_KEY,
				},
			},
		],
	};
}
