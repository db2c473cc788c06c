import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { COMPONENTS, ROUTES } from '../src/openapi.js';
import {
  answerSchema,
  createSchema,
  guardrailsSchema,
  messagesQuerySchema,
  signalSchema,
  signupSchema,
} from '../src/validation.js';
import { inProcessEmulator, KEY } from './in-process.js';

const OTHER = 'k_two';

type Schema = Record<string, unknown>;
// A type rather than an interface, so the in-process call's Json body converts to it.
type Doc = {
  openapi: string;
  info: { version: string };
  paths: Record<
    string,
    Record<string, { requestBody?: Schema; parameters?: Schema[]; responses: Record<string, Schema> }>
  >;
  components: { schemas: Record<string, Schema> };
};

function setup() {
  return inProcessEmulator('', { apiKeys: [KEY, OTHER], keysWithoutIntegration: ['k_none'] });
}

/** The parts of JSON Schema the document uses, enough to say whether a served body is what it documents. */
function problems(value: unknown, schema: Schema, doc: Doc, at = '$'): string[] {
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.replace('#/components/schemas/', '');
    const target = doc.components.schemas[name];
    return target ? problems(value, target, doc, at) : [`${at}: dangling $ref ${schema.$ref}`];
  }
  if (Array.isArray(schema.anyOf)) {
    return (schema.anyOf as Schema[]).some((s) => problems(value, s, doc, at).length === 0)
      ? []
      : [`${at}: matches no anyOf branch`];
  }
  const types = schema.type === undefined ? undefined : ([] as unknown[]).concat(schema.type);
  const typeOf = (v: unknown) =>
    v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v;
  if (types && !types.some((t) => t === typeOf(value) || (t === 'number' && typeOf(value) === 'integer'))) {
    return [`${at}: ${JSON.stringify(value)} is not ${types.join('|')}`];
  }
  if ('const' in schema && value !== schema.const)
    return [`${at}: ${JSON.stringify(value)} is not ${schema.const}`];
  if (Array.isArray(schema.enum) && !schema.enum.includes(value))
    return [`${at}: ${String(value)} not in enum`];
  const out: string[] = [];
  if (Array.isArray(value) && schema.items) {
    value.forEach((item, i) => {
      out.push(...problems(item, schema.items as Schema, doc, `${at}[${i}]`));
    });
  }
  if (typeOf(value) === 'object' && schema.properties) {
    const object = value as Record<string, unknown>;
    const properties = schema.properties as Record<string, Schema>;
    for (const field of (schema.required as string[] | undefined) ?? []) {
      if (!(field in object)) out.push(`${at}.${field}: required, missing`);
    }
    for (const [field, v] of Object.entries(object)) {
      const property = properties[field];
      if (property) out.push(...problems(v, property, doc, `${at}.${field}`));
      else if (schema.additionalProperties === undefined)
        out.push(`${at}.${field}: served but not documented`);
    }
  }
  return out;
}

const documentOf = async () => (await setup().call('GET', '/openapi.json', undefined, null)).body as Doc;

describe('the OpenAPI document', () => {
  it('is OpenAPI 3.1.0, version 0.1.0, with every route the app serves and no other', async () => {
    const doc = await documentOf();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('0.1.0');
    const served = setup()
      .app.routes.filter(
        (r) => r.method !== 'ALL' && !r.path.startsWith('/_emulator') && r.path !== '/openapi.json',
      )
      .map((r) => `${r.method.toLowerCase()} ${r.path.replace(/:(\w+)/g, '{$1}')}`)
      .sort();
    const documented = Object.entries(doc.paths)
      .flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method} ${path}`))
      .sort();
    expect(documented).toEqual(served);
  });

  it('takes its request schemas from the zod objects the routes validate with', async () => {
    const doc = await documentOf();
    const bodyRef = (path: string) => {
      const body = doc.paths[path]?.post?.requestBody as
        | { content: Record<string, { schema: { $ref: string } }> }
        | undefined;
      return body?.content['application/json']?.schema.$ref;
    };
    const expected: Array<[string, z.ZodType, string]> = [
      ['/api/auth/signup', signupSchema, 'SignupRequest'],
      ['/v1/sessions', createSchema, 'SessionCreateRequest'],
      ['/v1/sessions/{id}/signal', signalSchema, 'SignalRequest'],
      ['/v1/sessions/{id}/human-input/{inputId}', answerSchema, 'HumanInputResponseRequest'],
    ];
    for (const [path, schema, name] of expected) {
      expect(bodyRef(path)).toBe(`#/components/schemas/${name}`);
      expect(COMPONENTS[name as keyof typeof COMPONENTS]).toBe(schema);
      // Standalone, zod inlines what the document refers to: the same schema either way.
      const { $schema: _, ...standalone } = z.toJSONSchema(schema, { io: 'input' }) as Schema;
      const inDoc = doc.components.schemas[name] as Schema;
      if (name === 'SessionCreateRequest') {
        const { $schema: _g, ...guardrails } = z.toJSONSchema(guardrailsSchema, { io: 'input' }) as Schema;
        expect(doc.components.schemas.Guardrails).toEqual(guardrails);
        expect((standalone.properties as Schema).guardrails).toEqual(guardrails);
        expect({ ...inDoc, properties: { ...(inDoc.properties as Schema), guardrails } }).toEqual(standalone);
      } else expect(inDoc).toEqual(standalone);
    }
    // What the refinement and the transform check, the document says too.
    expect(doc.components.schemas.SignalRequest).toHaveProperty(['then', 'required'], ['message']);
    const parameters = doc.paths['/v1/sessions/{id}/messages']?.get?.parameters ?? [];
    expect(parameters.filter((p) => p.in === 'query').map((p) => p.name)).toEqual(
      Object.keys(messagesQuerySchema.shape),
    );
    expect(parameters.find((p) => p.name === 'limit')?.schema).toEqual({
      type: 'integer',
      minimum: 1,
      maximum: 200,
    });
  });

  it('lists every status each route serves, and every body served matches the documented schema', async () => {
    const doc = await documentOf();
    const { call, deps } = setup();
    const exercised = new Map<string, Set<string>>();
    const expectDocumented = async (
      route: string,
      method: 'get' | 'post',
      path: string,
      body: unknown,
      status: number,
      key: string | null = KEY,
    ) => {
      const res = await call(method.toUpperCase(), path, body, key);
      expect(res.status, `${method} ${path} ${JSON.stringify(res.body)}`).toBe(status);
      const responses = doc.paths[route]?.[method]?.responses ?? {};
      const documented = responses[String(status)] ? String(status) : status >= 500 ? '5XX' : undefined;
      expect(documented, `${status} of ${method} ${route} not documented`).toBeDefined();
      const content = responses[documented as string]?.content as
        | Record<string, { schema: Schema } | undefined>
        | undefined;
      const schema = content?.['application/json']?.schema;
      if (!schema) throw new Error(`${status} of ${method} ${route} has no JSON schema`);
      expect(problems(res.body, schema, doc), `${method} ${path} ${status}`).toEqual([]);
      exercised.set(
        `${method} ${route}`,
        (exercised.get(`${method} ${route}`) ?? new Set()).add(documented as string),
      );
      return res.body as Record<string, unknown>;
    };
    const inject = async (
      route: string,
      method: 'get' | 'post',
      path: string,
      body: unknown,
      status: 429 | 500 | 503,
    ) => {
      deps.faults.set(status === 429 ? { rate429: 1 } : { burst5xx: 1, status5xx: status });
      await expectDocumented(route, method, path, body, status);
      deps.faults.clear();
    };

    const signup = '/api/auth/signup';
    await expectDocumented(
      signup,
      'post',
      signup,
      { email: 'a@b.co', password: 'secret1', displayName: 'A' },
      200,
      null,
    );
    await expectDocumented(signup, 'post', signup, { email: 'nope', password: 'secret1' }, 400, null);

    const create = '/v1/sessions';
    const made = await expectDocumented(create, 'post', create, { goal: 'scenario:approval x' }, 201);
    const id = String(made.sessionId);
    await expectDocumented(create, 'post', create, { goal: '' }, 400);
    await expectDocumented(create, 'post', create, { goal: 'g' }, 401, null);
    await expectDocumented(create, 'post', create, { goal: 'g' }, 404, 'k_none');

    const status = '/v1/sessions/{id}';
    const messages = '/v1/sessions/{id}/messages';
    for (let t = 0; t < 30_000; t += 1_000) {
      deps.scheduler.advance(1_000);
      await expectDocumented(status, 'get', `/v1/sessions/${id}`, undefined, 200);
      await expectDocumented(messages, 'get', `/v1/sessions/${id}/messages?limit=3`, undefined, 200);
    }
    const waiting = await expectDocumented(status, 'get', `/v1/sessions/${id}`, undefined, 200);
    expect(waiting.status).toBe('waiting_human');
    await expectDocumented(status, 'get', `/v1/sessions/${id}`, undefined, 401, null);
    await expectDocumented(status, 'get', `/v1/sessions/${id}`, undefined, 403, OTHER);
    await expectDocumented(status, 'get', '/v1/sessions/sess_none', undefined, 404);
    await expectDocumented(messages, 'get', `/v1/sessions/${id}/messages?limit=0`, undefined, 400);
    await expectDocumented(messages, 'get', `/v1/sessions/${id}/messages`, undefined, 401, null);
    await expectDocumented(messages, 'get', `/v1/sessions/${id}/messages`, undefined, 403, OTHER);
    await expectDocumented(messages, 'get', '/v1/sessions/sess_none/messages', undefined, 404);

    const answer = '/v1/sessions/{id}/human-input/{inputId}';
    const rounds = waiting.rounds as Array<{ humanInput?: { inputId: string } }>;
    const inputId = rounds.find((r) => r.humanInput)?.humanInput?.inputId;
    const answerPath = `/v1/sessions/${id}/human-input/${inputId}`;
    await expectDocumented(answer, 'post', answerPath, { approved: 'yes' }, 400);
    await expectDocumented(answer, 'post', answerPath, { approved: true }, 401, null);
    await expectDocumented(answer, 'post', answerPath, { approved: true }, 403, OTHER);
    await expectDocumented(answer, 'post', `/v1/sessions/${id}/human-input/in_none`, { approved: true }, 404);
    await expectDocumented(answer, 'post', answerPath, { approved: true }, 200);

    const signal = '/v1/sessions/{id}/signal';
    const signalPath = `/v1/sessions/${id}/signal`;
    deps.scheduler.advance(2_000);
    await expectDocumented(signal, 'post', signalPath, { type: 'redirect' }, 400);
    await expectDocumented(signal, 'post', signalPath, { type: 'pause' }, 401, null);
    await expectDocumented(signal, 'post', signalPath, { type: 'pause' }, 403, OTHER);
    await expectDocumented(signal, 'post', '/v1/sessions/sess_none/signal', { type: 'pause' }, 404);
    await expectDocumented(signal, 'post', signalPath, { type: 'pause', reason: 'lunch' }, 202);
    await expectDocumented(signal, 'post', signalPath, { type: 'resume', message: 'go on' }, 202);
    deps.scheduler.advance(30_000);
    await expectDocumented(status, 'get', `/v1/sessions/${id}`, undefined, 200);
    await expectDocumented(messages, 'get', `/v1/sessions/${id}/messages?limit=200`, undefined, 200);

    for (const [route, methods] of Object.entries(doc.paths)) {
      for (const method of Object.keys(methods) as Array<'get' | 'post'>) {
        if (!ROUTES[route]?.[method]?.faults) continue;
        const path = route.replace('{id}', id).replace('{inputId}', String(inputId));
        const body = method === 'post' ? {} : undefined;
        await inject(route, method, path, body, 429);
        await inject(route, method, path, body, 503);
        if (doc.paths[route]?.[method]?.responses['500']) await inject(route, method, path, body, 500);
      }
    }
    await expectDocumented('/healthz', 'get', '/healthz', undefined, 200, null);

    // Every status the document lists was served above.
    for (const [route, methods] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        expect([...(exercised.get(`${method} ${route}`) ?? [])].sort(), `${method} ${route}`).toEqual(
          Object.keys(operation.responses).sort(),
        );
      }
    }
  });
});
