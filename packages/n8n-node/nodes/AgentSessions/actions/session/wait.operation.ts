import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { sessionId } from '../../helpers/parameters';
import { waitFor } from '../../helpers/sessions';
import { sessionsApi } from '../../transport';
import { sessionIdProperty, waitProperties } from '../common.descriptions';

const displayOptions = { show: { resource: ['session'], operation: ['wait'] } };

export const description = updateDisplayOptions(displayOptions, [sessionIdProperty, ...waitProperties]);

export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject> {
	const id = sessionId(this, i);
	return waitFor.call(this, await sessionsApi(this), id, i);
}
