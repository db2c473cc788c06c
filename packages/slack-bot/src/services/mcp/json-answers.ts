import {
  isLegacyRequest,
  type McpHandlerRequestOptions,
  type McpHttpHandler,
  type McpServerFactory,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { fieldOf, messagesOf } from './json-rpc-body.js';
import { heldOpenCalls } from './open-calls.js';

/** The SDK's handler, fetch-shaped, as `toNodeHandler` takes it. */
type FetchHandler = Pick<McpHttpHandler, 'fetch'>;

/**
 * The SDK's handler, with 2025-era requests that hold nothing open answered in one JSON body instead of
 * an SSE stream (the protocol lets a server answer a POST either way, and every host accepts both).
 * The SDK's stateless fallback always streams: its answer to a `get_session` went through three web
 * streams and SSE framing here, and the host's SSE parser there, for one message. The transport and
 * server are the SDK's, made per request as its fallback makes them; only the answer's form differs.
 * A call that holds its request open (`wait_for_session`, whose stream also carries keep-alives) or asks
 * for progress keeps the SDK's stream, and 2026-era requests the SDK's own path.
 */
export function withJsonAnswers(
  sdk: FetchHandler,
  factory: McpServerFactory,
  options: { maxBodyBytes: number },
): FetchHandler {
  const classify = { maxRequestBodySize: options.maxBodyBytes };
  return {
    fetch: async (request, given) =>
      request.method === 'POST' &&
      answersInJson(given?.parsedBody) &&
      (await isLegacyRequest(request, given?.parsedBody, classify))
        ? answerInJson(request, given, factory, options)
        : sdk.fetch(request, given),
  };
}

/** Whether every message of the body is answered at once, with nothing sent before its result. */
export function answersInJson(body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false;
  if (Array.isArray(body) && body.length === 0) return false;
  if (heldOpenCalls(body).length > 0) return false;
  return messagesOf(body).every(
    (m) => fieldOf(fieldOf(fieldOf(m, 'params'), '_meta'), 'progressToken') === undefined,
  );
}

async function answerInJson(
  request: Request,
  given: McpHandlerRequestOptions | undefined,
  factory: McpServerFactory,
  options: { maxBodyBytes: number },
): Promise<Response> {
  const server = await factory({
    era: 'legacy',
    ...(given?.authInfo ? { authInfo: given.authInfo } : {}),
    requestInfo: request,
  });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: options.maxBodyBytes,
  });
  const teardown = () => {
    void transport.close().catch(() => {});
    void server.close().catch(() => {});
  };
  // A host gone before its answer: the server ends its call, as the SDK's fallback does.
  request.signal.addEventListener('abort', teardown, { once: true });
  try {
    await server.connect(transport);
    return await transport.handleRequest(request, {
      ...(given?.authInfo ? { authInfo: given.authInfo } : {}),
      ...(given?.parsedBody !== undefined ? { parsedBody: given.parsedBody } : {}),
    });
  } finally {
    request.signal.removeEventListener('abort', teardown);
    teardown();
  }
}
