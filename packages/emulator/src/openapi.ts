import { z } from 'zod';
import { SCENARIO_NAMES } from './agent/scenarios.js';
import {
  answerSchema,
  createSchema,
  guardrailsSchema,
  messagesQuerySchema,
  signalSchema,
  signupSchema,
} from './validation.js';
import {
  cost,
  elicitation,
  errorBody,
  health,
  humanInput,
  humanInputAck,
  message,
  messagesResponse,
  round,
  sessionCreateResponse,
  sessionStatus,
  signalResponse,
  signupResponse,
} from './wire.js';

/**
 * Every schema of the document, by component name. Request schemas are the very objects the routes
 * validate with (`validation.ts`), response schemas the emulator's wire shapes (`wire.ts`): the document
 * is generated from them with zod's JSON Schema output, never written a second time.
 */
export const COMPONENTS = {
  Error: errorBody,
  SignupRequest: signupSchema,
  SignupResponse: signupResponse,
  Guardrails: guardrailsSchema,
  SessionCreateRequest: createSchema,
  SessionCreateResponse: sessionCreateResponse,
  Cost: cost,
  HumanInput: humanInput,
  Elicitation: elicitation,
  Round: round,
  SessionStatus: sessionStatus,
  SignalRequest: signalSchema,
  SignalResponse: signalResponse,
  HumanInputResponseRequest: answerSchema,
  HumanInputAck: humanInputAck,
  Message: message,
  MessagesResponse: messagesResponse,
  Health: health,
} as const satisfies Record<string, z.ZodType>;

type ComponentName = keyof typeof COMPONENTS;

interface RouteDoc {
  summary: string;
  /** No API key (signup, health). */
  open?: boolean;
  /** Behind the fault injection (the contract's surface): 429 and 5xx can be injected. */
  faults?: boolean;
  pathParams?: Array<{ name: string; description: string }>;
  query?: z.ZodObject;
  body?: ComponentName;
  ok: { status: number; description: string; schema: ComponentName };
  errors: Record<number, string>;
}

const SESSION_ID = { name: 'id', description: 'The sessionId returned at creation' };
const KEY = 'Missing or invalid API key';
const FORBIDDEN = 'Not authorized to access this session (another account)';

/** What each route serves: its statuses are facts of the routes, its schemas come from COMPONENTS. */
export const ROUTES: Record<string, Partial<Record<'get' | 'post', RouteDoc>>> = {
  '/api/auth/signup': {
    post: {
      summary: 'Create an account',
      open: true,
      faults: true,
      body: 'SignupRequest',
      ok: { status: 200, description: 'Account created and signed in', schema: 'SignupResponse' },
      errors: {
        400: 'Validation error: missing fields, email exists, weak password, invalid email',
        500: 'Internal error',
      },
    },
  },
  '/v1/sessions': {
    post: {
      summary: 'Create a session',
      faults: true,
      body: 'SessionCreateRequest',
      ok: { status: 201, description: 'Session queued', schema: 'SessionCreateResponse' },
      errors: {
        400: 'Invalid request (a field and its rule), or an unknown scenario',
        401: KEY,
        404: 'Integration not found',
        500: 'Internal error',
      },
    },
  },
  '/v1/sessions/{id}': {
    get: {
      summary: 'Session status',
      faults: true,
      pathParams: [SESSION_ID],
      ok: { status: 200, description: 'Session status', schema: 'SessionStatus' },
      errors: { 401: KEY, 403: FORBIDDEN, 404: 'Session not found' },
    },
  },
  '/v1/sessions/{id}/signal': {
    post: {
      summary: 'Pause, resume, cancel or redirect a session',
      faults: true,
      pathParams: [SESSION_ID],
      body: 'SignalRequest',
      ok: { status: 202, description: 'Signal accepted', schema: 'SignalResponse' },
      errors: {
        400: 'Invalid request, or a rule of the signal violated (the session is finished, not paused…)',
        401: KEY,
        403: FORBIDDEN,
        404: 'Session not found',
        500: 'Internal error',
      },
    },
  },
  '/v1/sessions/{id}/human-input/{inputId}': {
    post: {
      summary: 'Answer a human-input request',
      faults: true,
      pathParams: [
        SESSION_ID,
        { name: 'inputId', description: 'The id of the request, from its human_input_needed message' },
      ],
      body: 'HumanInputResponseRequest',
      ok: { status: 200, description: 'Input recorded; the session resumes', schema: 'HumanInputAck' },
      errors: {
        400: 'Invalid answer (naming the field), already answered, or no longer pending',
        401: KEY,
        403: FORBIDDEN,
        404: 'Session or human-input request not found',
        500: 'Internal error',
      },
    },
  },
  '/v1/sessions/{id}/messages': {
    get: {
      summary: 'Session messages, oldest first across rounds',
      faults: true,
      pathParams: [SESSION_ID],
      query: messagesQuerySchema,
      ok: { status: 200, description: 'A page of messages', schema: 'MessagesResponse' },
      errors: {
        400: 'limit out of range, or after not a roundId of the session',
        401: KEY,
        403: FORBIDDEN,
        404: 'Session not found',
      },
    },
  },
  '/healthz': {
    get: {
      summary: 'Liveness',
      open: true,
      ok: { status: 200, description: 'Up', schema: 'Health' },
      errors: {},
    },
  },
};

const ref = (name: ComponentName) => ({ $ref: `#/components/schemas/${name}` });
const json = (name: ComponentName) => ({ 'application/json': { schema: ref(name) } });
const errorResponse = (description: string) => ({ description, content: json('Error') });

/** zod's JSON Schema (draft 2020-12, OpenAPI 3.1's dialect) of every component, `$ref`s between them. */
function componentSchemas(): Record<string, unknown> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(COMPONENTS)) registry.add(schema, { id });
  // `input`: what a caller sends and what a caller reads, before any of the emulator's transforms.
  const { schemas } = z.toJSONSchema(registry, {
    io: 'input',
    uri: (id) => `#/components/schemas/${id}`,
  });
  const out: Record<string, unknown> = {};
  for (const [id, schema] of Object.entries(schemas)) {
    // Each came out as a standalone document; inside `components` the dialect and ids are the document's.
    const { $schema: _dialect, $id: _id, ...rest } = schema as Record<string, unknown>;
    out[id] = rest;
  }
  return out;
}

function queryParameters(query: z.ZodObject): unknown[] {
  const schema = z.toJSONSchema(query, { io: 'input' }) as {
    properties?: Record<string, { description?: string } & Record<string, unknown>>;
    required?: string[];
  };
  return Object.entries(schema.properties ?? {}).map(([name, { description, ...rest }]) => ({
    name,
    in: 'query',
    required: schema.required?.includes(name) ?? false,
    ...(description ? { description } : {}),
    schema: rest,
  }));
}

function operation(route: RouteDoc): Record<string, unknown> {
  const responses: Record<string, unknown> = {
    [route.ok.status]: { description: route.ok.description, content: json(route.ok.schema) },
  };
  for (const [status, description] of Object.entries(route.errors))
    responses[status] = errorResponse(description);
  if (route.faults) {
    responses['429'] = {
      ...errorResponse('Rate limit exceeded (injected: EMULATOR_FAULT_RATE_429)'),
      headers: { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } } },
    };
    responses['5XX'] = errorResponse('Injected fault (EMULATOR_FAULT_BURST_5XX): 500, 502 or 503');
  }
  const parameters = [
    ...(route.pathParams ?? []).map(({ name, description }) => ({
      name,
      in: 'path',
      required: true,
      description,
      schema: { type: 'string' },
    })),
    ...(route.query ? queryParameters(route.query) : []),
  ];
  return {
    summary: route.summary,
    ...(route.open ? { security: [] } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.body ? { requestBody: { required: true, content: json(route.body) } } : {}),
    responses,
  };
}

/** OpenAPI 3.1.0 description of exactly what this emulator serves on the contract's surface. */
export function openApiDocument(): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [path, methods] of Object.entries(ROUTES)) {
    paths[path] = {};
    for (const [method, route] of Object.entries(methods)) paths[path][method] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Agent Session Service (local emulator)',
      version: '0.1.0',
      description: `Scenarios (context.scenario or a scenario:<name> word in the goal): ${SCENARIO_NAMES.join(', ')}. Development endpoints under /_emulator/ are not part of the contract and are not described here. The schemas describe the emulator without EMULATOR_QUIRKS; the quirks send what the spec also allows (see the emulator's README).`,
    },
    servers: [{ url: '/' }],
    security: [{ bearerAuth: [] }, { serviceKey: [] }],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer' },
        serviceKey: { type: 'apiKey', in: 'header', name: 'X-Service-Key' },
      },
      schemas: componentSchemas(),
    },
  };
}
