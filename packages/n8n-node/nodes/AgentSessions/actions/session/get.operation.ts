import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { sessionId } from '../../helpers/parameters';
import { asJson } from '../../helpers/sessions';
import { sessionsApi } from '../../transport';
import { sessionIdProperty } from '../common.descriptions';

const displayOptions = { show: { resource: ['session'], operation: ['get'] } };

export const description = updateDisplayOptions(displayOptions, [sessionIdProperty]);

export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject> {
	const sessions = await sessionsApi(this);
	return asJson(await sessions.get(sessionId(this, i)));
}
