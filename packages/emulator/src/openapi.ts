import { SCENARIO_NAMES } from './agent/scenarios.js';

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

const json = (ref: string) => ({ 'application/json': { schema: { $ref: `#/components/schemas/${ref}` } } });

const sessionId = {
  name: 'id',
  in: 'path',
  required: true,
  schema: { type: 'string' },
  description: 'sessionId',
};

const STATUSES = [
  'queued',
  'orchestrating',
  'running',
  'waiting_human',
  'paused',
  'cost_limit',
  'completed',
  'cancelled',
  'error',
];

/** OpenAPI 3.1.0 description of exactly what this emulator serves on the contract's surface. */
export function openApiDocument(): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Agent Session Service (local emulator)',
      version: '0.1.0',
      description: `Scenarios (context.scenario or a scenario:<name> word in the goal): ${SCENARIO_NAMES.join(', ')}. Development endpoints under /_emulator/ are not part of the contract and are not described here.`,
    },
    servers: [{ url: '/' }],
    security: [{ bearerAuth: [] }, { serviceKey: [] }],
    paths: {
      '/api/auth/signup': {
        post: {
          summary: 'Create an account',
          security: [],
          requestBody: { required: true, content: json('SignupRequest') },
          responses: {
            '200': { description: 'Account created and signed in', content: json('SignupResponse') },
            '400': errorResponse(
              'Validation error: missing fields, email exists, weak password, invalid email',
            ),
            '500': errorResponse('Internal error'),
          },
        },
      },
      '/v1/sessions': {
        post: {
          summary: 'Create a session',
          requestBody: { required: true, content: json('SessionCreateRequest') },
          responses: {
            '201': { description: 'Session queued', content: json('SessionCreateResponse') },
            '400': errorResponse('Invalid request'),
            '401': errorResponse('Missing or invalid API key'),
            '404': errorResponse('Integration not found'),
            '500': errorResponse('Internal error'),
          },
        },
      },
      '/v1/sessions/{id}': {
        get: {
          summary: 'Session status',
          parameters: [sessionId],
          responses: {
            '200': { description: 'Session status', content: json('SessionStatus') },
            '401': errorResponse('Missing or invalid API key'),
            '403': errorResponse('Not authorized to access this session'),
            '404': errorResponse('Session not found'),
          },
        },
      },
      '/v1/sessions/{id}/signal': {
        post: {
          summary: 'Pause, resume, cancel or redirect a session',
          parameters: [sessionId],
          requestBody: { required: true, content: json('SignalRequest') },
          responses: {
            '202': { description: 'Signal accepted', content: json('SignalResponse') },
            '400': errorResponse('Invalid request or a rule of the signal violated'),
            '401': errorResponse('Missing or invalid API key'),
            '403': errorResponse('Not authorized to access this session'),
            '404': errorResponse('Session not found'),
            '500': errorResponse('Internal error'),
          },
        },
      },
      '/v1/sessions/{id}/human-input/{inputId}': {
        post: {
          summary: 'Answer a human-input request',
          parameters: [
            sessionId,
            { name: 'inputId', in: 'path', required: true, schema: { type: 'string' } },
          ],
          requestBody: { required: true, content: json('HumanInputResponseRequest') },
          responses: {
            '200': { description: 'Input recorded', content: json('HumanInputAck') },
            '400': errorResponse('Invalid answer, or the request was already answered'),
            '401': errorResponse('Missing or invalid API key'),
            '403': errorResponse('Not authorized to access this session'),
            '404': errorResponse('Session or human-input request not found'),
            '500': errorResponse('Internal error'),
          },
        },
      },
      '/v1/sessions/{id}/messages': {
        get: {
          summary: 'Session messages, oldest first across rounds',
          parameters: [
            sessionId,
            {
              name: 'limit',
              in: 'query',
              schema: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
            },
            {
              name: 'after',
              in: 'query',
              schema: { type: 'string' },
              description: 'A roundId: results start after it',
            },
          ],
          responses: {
            '200': { description: 'A page of messages', content: json('MessagesResponse') },
            '400': errorResponse('limit out of range or after not a roundId of the session'),
            '401': errorResponse('Missing or invalid API key'),
            '403': errorResponse('Not authorized to access this session'),
            '404': errorResponse('Session not found'),
          },
        },
      },
      '/healthz': {
        get: {
          summary: 'Liveness',
          security: [],
          responses: {
            '200': { description: 'Up', content: { 'application/json': { schema: { type: 'object' } } } },
          },
        },
      },
    },
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer' },
        serviceKey: { type: 'apiKey', in: 'header', name: 'X-Service-Key' },
      },
      schemas: {
        Error: { type: 'object', required: ['error'], properties: { error: { type: 'string' } } },
        SignupRequest: {
          type: 'object',
          required: ['email', 'password'],
          properties: {
            email: { type: 'string', format: 'email' },
            password: { type: 'string', minLength: 6 },
            displayName: { type: 'string' },
          },
        },
        SignupResponse: {
          type: 'object',
          properties: {
            user: {
              type: 'object',
              properties: {
                uid: { type: 'string' },
                email: { type: 'string' },
                displayName: { type: ['string', 'null'] },
                photoURL: { type: ['string', 'null'] },
                emailVerified: { type: 'boolean' },
              },
            },
            idToken: { type: 'string' },
            refreshToken: { type: 'string' },
            expiresIn: { type: 'string' },
          },
        },
        Guardrails: {
          type: 'object',
          additionalProperties: true,
          properties: {
            maxCostPerSession: { type: 'number', exclusiveMinimum: 0 },
            maxIterations: { type: 'integer', minimum: 1, default: 50 },
          },
        },
        SessionCreateRequest: {
          type: 'object',
          required: ['goal'],
          properties: {
            goal: { type: 'string', minLength: 1 },
            context: { type: ['object', 'null'], additionalProperties: true },
            guardrails: { $ref: '#/components/schemas/Guardrails' },
          },
        },
        SessionCreateResponse: {
          type: 'object',
          properties: {
            sessionId: { type: 'string' },
            roundId: { type: 'string' },
            status: { const: 'queued' },
          },
        },
        Cost: {
          type: 'object',
          properties: {
            totalCost: { type: 'number' },
            totalTokens: { type: 'integer' },
            promptTokens: { type: 'integer' },
            completionTokens: { type: 'integer' },
          },
        },
        SessionStatus: {
          type: 'object',
          properties: {
            sessionId: { type: 'string' },
            status: { type: 'string', enum: STATUSES },
            message: { type: 'string', description: 'The original goal' },
            cost: { $ref: '#/components/schemas/Cost' },
            rounds: { type: 'array', items: { type: 'object', additionalProperties: true } },
            createdAt: {},
            updatedAt: {},
            completedAt: {},
            error: { type: ['string', 'null'] },
            completionReport: {},
          },
        },
        SignalRequest: {
          type: 'object',
          required: ['type'],
          properties: {
            type: { type: 'string', enum: ['pause', 'resume', 'cancel', 'redirect'] },
            reason: { type: 'string' },
            message: { type: 'string', description: 'Required for redirect' },
            newBudget: { type: 'number', exclusiveMinimum: 0 },
          },
        },
        SignalResponse: {
          type: 'object',
          properties: {
            sessionId: { type: 'string' },
            signal: { type: 'string' },
            roundId: { type: 'string' },
            message: { type: 'string' },
          },
        },
        HumanInputResponseRequest: {
          type: 'object',
          properties: {
            approved: { type: 'boolean' },
            choiceId: { type: 'string' },
            choiceIds: { type: 'array', items: { type: 'string' } },
            freeText: { type: 'string' },
            answers: { type: 'object', additionalProperties: true },
          },
        },
        HumanInputAck: {
          type: 'object',
          properties: {
            inputId: { type: 'string' },
            status: { const: 'responded' },
            roundId: { type: 'string' },
            message: { type: 'string' },
          },
        },
        Message: {
          type: 'object',
          properties: {
            roundId: { type: 'string' },
            role: { type: 'string' },
            content: { type: 'string' },
            name: { type: 'string' },
            reasoning: { type: 'string' },
            reasoningDurationMs: { type: 'integer' },
            toolCallId: { type: 'string' },
            toolCalls: { type: 'array', items: { type: 'object', additionalProperties: true } },
            timestamp: {},
          },
        },
        MessagesResponse: {
          type: 'object',
          properties: {
            sessionId: { type: 'string' },
            messages: { type: 'array', items: { $ref: '#/components/schemas/Message' } },
            pagination: {
              type: 'object',
              properties: {
                count: { type: 'integer' },
                hasMore: { type: 'boolean' },
                lastRoundId: { type: ['string', 'null'] },
              },
            },
          },
        },
      },
    },
  };
}
