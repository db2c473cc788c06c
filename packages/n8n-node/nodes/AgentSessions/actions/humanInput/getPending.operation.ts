import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { sessionId } from '../../helpers/parameters';
import { pendingRequest, requestOutput } from '../../helpers/sessions';
import { sessionsApi } from '../../transport';
import { sessionIdProperty } from '../common.descriptions';

const displayOptions = { show: { resource: ['humanInput'], operation: ['getPending'] } };

export const description = updateDisplayOptions(displayOptions, [sessionIdProperty]);

export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject> {
	const id = sessionId(this, i);
	const sessions = await sessionsApi(this);
	const session = await sessions.get(id);
	const request = await pendingRequest(sessions, session, this.getExecutionCancelSignal());
	return request
		? { pending: true, sessionId: id, status: session.status, request: requestOutput(request) }
		: { pending: false, sessionId: id, status: session.status };
}
