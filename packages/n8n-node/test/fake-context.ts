import type { IExecuteFunctions, IHttpRequestOptions, INode } from 'n8n-workflow';

export interface FakeContextOptions {
  /** Node parameters, one object per input item. */
  items: Array<Record<string, unknown>>;
  credentials: { baseUrl: string; apiKey: string };
  continueOnFail?: boolean;
  signal?: AbortSignal;
}

export const NODE: INode = {
  id: 'node-1',
  name: 'Agent Sessions',
  type: 'n8n-nodes-agent-sessions.agentSessions',
  typeVersion: 1,
  position: [0, 0],
  parameters: {},
};

/** Real HTTP, as n8n's helper does it: generic Bearer auth from the credential, JSON, full responses. */
async function http(options: IHttpRequestOptions, apiKey: string) {
  const url = new URL(options.url);
  for (const [k, v] of Object.entries(options.qs ?? {})) url.searchParams.set(k, String(v));
  const response = await fetch(url, {
    method: options.method ?? 'GET',
    headers: {
      Authorization: `Bearer ${apiKey}`,
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    ...(options.abortSignal ? { signal: options.abortSignal as AbortSignal } : {}),
  });
  const text = await response.text();
  const body = text === '' ? undefined : JSON.parse(text);
  if (!response.ok && !options.ignoreHttpStatusErrors) {
    throw Object.assign(new Error(`Request failed with status code ${response.status}`), { httpCode: String(response.status) });
  }
  const headers = Object.fromEntries(response.headers.entries());
  return options.returnFullResponse ? { statusCode: response.status, body, headers } : body;
}

/** An IExecuteFunctions with what the node uses, its HTTP real (against the emulator). */
export type FakeContext = IExecuteFunctions & {
  requests: IHttpRequestOptions[];
  /** Called after each request's answer arrives (to stop the execution at a known point). */
  onRequest?: (request: IHttpRequestOptions) => void;
};

export function fakeContext(options: FakeContextOptions): FakeContext {
  const requests: IHttpRequestOptions[] = [];
  const context: { requests: IHttpRequestOptions[]; onRequest?: (request: IHttpRequestOptions) => void } & Record<string, unknown> = {
    requests,
    getInputData: () => options.items.map(() => ({ json: {} })),
    getNodeParameter: (name: string, itemIndex: number, fallback?: unknown) => {
      const value = options.items[itemIndex]?.[name];
      if (value !== undefined) return value;
      if (fallback !== undefined) return fallback;
      throw new Error(`Could not get parameter "${name}"`);
    },
    getCredentials: async (type: string) => {
      if (type !== 'agentSessionsApi') throw new Error(`unexpected credential type ${type}`);
      return options.credentials;
    },
    getNode: () => NODE,
    continueOnFail: () => options.continueOnFail ?? false,
    getExecutionCancelSignal: () => options.signal,
    helpers: {
      // The plain helper: the caller brings its own Authorization header (no credential is applied).
      httpRequest: async (request: IHttpRequestOptions) => {
        requests.push(request);
        const auth = String((request.headers as Record<string, unknown> | undefined)?.Authorization ?? '');
        const response = await http(request, auth.replace(/^Bearer /, ''));
        context.onRequest?.(request);
        return response;
      },
      httpRequestWithAuthentication: async (type: string, given: IHttpRequestOptions) => {
        if (type !== 'agentSessionsApi') throw new Error(`unexpected credential type ${type}`);
        // As n8n-core 2.x does: the execution's cancel signal replaces any the node passed.
        const request = { ...given, abortSignal: options.signal };
        requests.push(request);
        const response = await http(request, options.credentials.apiKey);
        context.onRequest?.(request);
        return response;
      },
    },
  };
  return context as unknown as FakeContext;
}
