import type { INodeExecutionData, INodeType, INodeTypeDescription, IPollFunctions } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import { MAX_FOLLOWED_SESSIONS } from './events';
import { pollSessions } from './poll';

export class AgentSessionsTrigger implements INodeType {
	// A polling trigger: n8n's schedule ("Poll Times") calls poll(). The contract has no way to list
	// sessions, so the trigger follows the sessions it is given (docs/trigger.md).
	description: INodeTypeDescription = {
		displayName: 'Agent Sessions Trigger',
		name: 'agentSessionsTrigger',
		icon: { light: 'file:../AgentSessions/agentSessions.svg', dark: 'file:../AgentSessions/agentSessions.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{$parameter["events"].join(", ")}}',
		description: 'Starts the workflow when an agent session asks a question, finishes, fails, is cancelled or reaches its budget',
		defaults: { name: 'Agent Sessions Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'agentSessionsApi', required: true }],
		properties: [
			{
				displayName: 'Events',
				name: 'events',
				type: 'multiOptions',
				required: true,
				options: [
					{
						name: 'Budget Reached',
						value: 'budgetReached',
						description: 'The session spent its budget and waits for a new one (status cost_limit)',
					},
					{
						name: 'Question Waiting',
						value: 'question',
						description: 'The agent asks a person and waits; the item carries the question and its form fields',
					},
					{ name: 'Session Cancelled', value: 'cancelled' },
					{ name: 'Session Failed', value: 'failed' },
					{ name: 'Session Finished', value: 'finished', description: 'Completed, with its report' },
				],
				default: ['question', 'finished', 'failed', 'cancelled', 'budgetReached'],
				description: 'Which events start the workflow; each fires once per session (once per question)',
			},
			{
				displayName: 'Session IDs',
				name: 'sessionIds',
				type: 'string',
				required: true,
				default: '',
				placeholder: 'e.g. sess_8f2k1, sess_9a7c2',
				description: `The sessions to follow (at most ${MAX_FOLLOWED_SESSIONS}), separated by commas, spaces or new lines, or an expression giving a list. The service can't list sessions, so the trigger follows the ones given here; it is read again at every poll.`,
			},
		],
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		return pollSessions.call(this);
	}
}
