import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { nodeError } from '../transport';
import * as humanInput from './humanInput';
import type { AgentSessionsType } from './node.type';
import * as session from './session';

/** Runs the chosen operation per item: pairedItem on every output, Continue On Fail honoured. */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const returnData: INodeExecutionData[] = [];
	const resource = this.getNodeParameter<AgentSessionsType>('resource', 0);
	const operation = this.getNodeParameter('operation', 0);
	const nodeData = { resource, operation } as AgentSessionsType;

	for (let i = 0; i < items.length; i++) {
		try {
			let responseData: IDataObject | IDataObject[] | undefined;
			switch (nodeData.resource) {
				case 'session': {
					// An operation this version lacks (a workflow from elsewhere) is undefined here: reported below.
					const run: ((this: IExecuteFunctions, i: number) => Promise<IDataObject | IDataObject[]>) | undefined =
						session[nodeData.operation]?.execute;
					responseData = await run?.call(this, i);
					break;
				}
				case 'humanInput':
					responseData = await humanInput[nodeData.operation]?.execute.call(this, i);
					break;
				default:
					throw new NodeOperationError(this.getNode(), `The resource "${resource}" is not supported`, {
						itemIndex: i,
					});
			}
			if (responseData === undefined) {
				throw new NodeOperationError(this.getNode(), `The operation "${operation}" is not supported`, {
					itemIndex: i,
				});
			}
			for (const json of Array.isArray(responseData) ? responseData : [responseData]) {
				returnData.push({ json, pairedItem: { item: i } });
			}
		} catch (error) {
			if (this.continueOnFail()) {
				returnData.push({ json: { error: (error as Error).message }, pairedItem: { item: i } });
				continue;
			}
			// The service said no: NodeApiError with its status; a bad parameter or answer: NodeOperationError
			// naming it; anything else (a stopped execution, a dropped connection): the node's error.
			throw nodeError(this, error, i);
		}
	}
	return [returnData];
}
