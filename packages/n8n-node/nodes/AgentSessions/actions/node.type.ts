import type { AllEntities } from 'n8n-workflow';

type NodeMap = {
	session: 'create' | 'createAndWait' | 'get' | 'getMessages' | 'sendSignal' | 'wait';
	humanInput: 'getPending' | 'respond';
};

export type AgentSessionsType = AllEntities<NodeMap>;
