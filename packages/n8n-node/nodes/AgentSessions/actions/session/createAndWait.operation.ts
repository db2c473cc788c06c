import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { waitFor } from '../../helpers/sessions';
import { sessionsApi } from '../../transport';
import { waitProperties } from '../common.descriptions';
import { createSession, properties as createProperties } from './create.operation';

const displayOptions = { show: { resource: ['session'], operation: ['createAndWait'] } };

export const description = updateDisplayOptions(displayOptions, [...createProperties, ...waitProperties]);

export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject> {
	const sessions = await sessionsApi(this);
	const created = await createSession.call(this, sessions, i);
	return waitFor.call(this, sessions, String(created.sessionId), i);
}
