import type { IDataObject, IExecuteFunctions, IHttpRequestMethods, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

export interface ApiCall {
	method: IHttpRequestMethods;
	path: string;
	body?: IDataObject;
	qs?: IDataObject;
}

interface FullResponse {
	statusCode: number;
	body: unknown;
	headers?: Record<string, string>;
}

/** The service's own words for a failure: its `{ error }` body, else the status. */
function serviceMessage(status: number, body: unknown): string {
	const error = (body as { error?: unknown } | null)?.error;
	if (typeof error === 'string' && error.trim() !== '') return error;
	return `The Agent Session Service answered ${status}`;
}

/**
 * One request to the service through n8n's authenticated HTTP helper (n8n's proxy and credential
 * handling). Non-2xx answers become NodeApiError carrying the HTTP status and the service's message.
 */
export async function apiRequest<T = IDataObject>(
	this: IExecuteFunctions,
	call: ApiCall,
	itemIndex: number,
): Promise<T> {
	const credentials = await this.getCredentials<{ baseUrl: string }>('agentSessionsApi');
	const baseUrl = String(credentials.baseUrl).replace(/\/+$/, '');
	const signal = this.getExecutionCancelSignal();
	const response = (await this.helpers.httpRequestWithAuthentication.call(this, 'agentSessionsApi', {
		method: call.method,
		url: `${baseUrl}${call.path}`,
		...(call.body ? { body: call.body } : {}),
		...(call.qs ? { qs: call.qs } : {}),
		json: true,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		...(signal ? { abortSignal: signal } : {}),
	})) as FullResponse;
	if (response.statusCode >= 200 && response.statusCode < 300) return response.body as T;
	const message = serviceMessage(response.statusCode, response.body);
	const retryAfter = response.headers?.['retry-after'];
	throw new NodeApiError(this.getNode(), { error: message, status: response.statusCode } as JsonObject, {
		message,
		httpCode: String(response.statusCode),
		itemIndex,
		description:
			response.statusCode === 429 && retryAfter
				? `Rate limited: retry after ${retryAfter} seconds`
				: `${call.method} ${call.path}`,
	});
}

export const sessionPath = (sessionId: string, rest = '') => `/v1/sessions/${encodeURIComponent(sessionId)}${rest}`;
