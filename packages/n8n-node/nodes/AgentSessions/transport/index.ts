// The node's one way to the service: core's Sessions (requests checked against the contract, responses
// read field by field, typed errors, the wait loop) over n8n's authenticated HTTP helper. Core's pure
// modules are bundled into dist at build time (scripts/build.mjs): the published package has no runtime
// dependency but n8n-workflow.
import {
	type ApiRequest,
	type ApiResponse,
	createSessionsApi,
	HumanInputAnswerError,
	type Logger,
	RateLimitError,
	ServiceError,
	type Sessions,
	ValidationError,
} from '@agent-sessions/core/pure-without-zod';
import type { IDataObject, IExecuteFunctions, IHttpRequestOptions, IPollFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import { sleepWithAbort } from './sleep';

interface FullResponse {
	statusCode: number;
	body: unknown;
	headers?: Record<string, string | string[] | undefined>;
}

/** Where the node's requests run: a step's execution, or the trigger's poll. */
export type ApiContext = IExecuteFunctions | IPollFunctions;

/** Core logs pino-style (object, message); n8n's logger takes (message, metadata). */
function n8nLogger(ctx: ApiContext): Logger {
	const to =
		(level: 'debug' | 'info' | 'warn' | 'error') =>
		(obj: object, msg?: string): void => {
			ctx.logger?.[level](msg ?? 'Agent Sessions', obj as IDataObject);
		};
	return { debug: to('debug'), info: to('info'), warn: to('warn'), error: to('error') };
}

/**
 * Core's session endpoints for this execution (`afterStop`: for the one request sent once it was stopped): each request through `httpRequestWithAuthentication`
 * (n8n's proxy settings and the credential's Bearer key), any status handed back to core, which turns
 * a non-2xx into its typed error; sleeps through n8n-workflow's abortable sleep (./sleep), so stopping the execution stops a wait.
 */
export async function sessionsApi(ctx: ApiContext, { afterStop = false } = {}): Promise<Sessions> {
	const credentials = await ctx.getCredentials<{ baseUrl: string; apiKey: string }>('agentSessionsApi');
	const baseUrl = String(credentials.baseUrl).replace(/\/+$/, '');
	const request = async (req: ApiRequest): Promise<ApiResponse> => {
		const qs: IDataObject = {};
		for (const [key, value] of Object.entries(req.query ?? {})) if (value !== undefined) qs[key] = value;
		const options: IHttpRequestOptions = {
			method: req.method,
			url: `${baseUrl}${req.path}`,
			json: true,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			...(Object.keys(qs).length > 0 ? { qs } : {}),
			...(req.body === undefined ? {} : { body: req.body as IDataObject }),
			...(req.signal ? { abortSignal: req.signal } : {}),
		};
		// After the execution was stopped, n8n's authenticated helper aborts every request with the
		// execution's signal (n8n-core 2.x sets it): the cancel that must still go out uses the plain helper,
		// with the credential's Bearer key as its `authenticate` block sends it.
		const response = (
			afterStop
				? await ctx.helpers.httpRequest({
						...options,
						headers: { Authorization: `Bearer ${String(credentials.apiKey)}` },
					})
				: await ctx.helpers.httpRequestWithAuthentication.call(ctx, 'agentSessionsApi', options)
		) as FullResponse;
		return { status: response.statusCode, body: response.body, headers: response.headers ?? {} };
	};
	return createSessionsApi({ request, sleep: sleepWithAbort, logger: n8nLogger(ctx) });
}

/**
 * Core's errors as n8n's: the service's answers (401, 403, 404, 429, 5xx…) as NodeApiError with the HTTP
 * status and the service's own words; a request core refused before sending, or an answer that doesn't fit
 * its question, as NodeOperationError naming the field. Never the API key: core's errors don't carry it.
 */
export function nodeError(ctx: ApiContext, error: unknown, itemIndex?: number): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	if (error instanceof ValidationError || error instanceof HumanInputAnswerError) {
		return new NodeOperationError(ctx.getNode(), error.message, { itemIndex });
	}
	if (error instanceof ServiceError) {
		const retryAfter =
			error instanceof RateLimitError && error.retryAfterMs !== undefined
				? `Rate limited: retry after ${Math.ceil(error.retryAfterMs / 1000)} seconds`
				: undefined;
		return new NodeApiError(ctx.getNode(), { error: error.message, status: error.status } as JsonObject, {
			message: error.message,
			httpCode: String(error.status),
			itemIndex,
			description: retryAfter ?? `${error.method} ${error.path}`,
		});
	}
	return new NodeOperationError(ctx.getNode(), error as Error, { itemIndex });
}
