import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type BotProcess, useBotProcesses } from './bot-process.js';
import { scratchDatabase } from './database.js';
import { ALICE, CHANNEL, textOf, WAIT_MS } from './harness.js';
import { HUMAN_INPUT_ROUTE, isPrompt } from './helpers.js';

// Traces as an operator's collector receives them: the bot process exports OTLP/HTTP (JSON) to a local
// receiver made here, and the emulator records the `traceparent` each request to the service carried.

interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  attributes: Record<string, unknown>;
}

type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean };
type OtlpExport = {
  resourceSpans?: Array<{
    resource?: { attributes?: Array<{ key: string; value: OtlpValue }> };
    scopeSpans?: Array<{
      spans?: Array<{
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        attributes?: Array<{ key: string; value: OtlpValue }>;
      }>;
    }>;
  }>;
};

/** OTLP/JSON ids are hex; a base64 one (protobuf's JSON mapping) is turned into hex. */
const hexId = (id: string | undefined) =>
  !id ? '' : /^[0-9a-f]+$/.test(id) ? id : Buffer.from(id, 'base64').toString('hex');

/** An OTLP/HTTP receiver: every span POSTed to /v1/traces, decoded, and the resource's service name. */
async function otlpReceiver() {
  const spans: ReceivedSpan[] = [];
  const services = new Set<string>();
  const contentTypes = new Set<string>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      contentTypes.add(String(req.headers['content-type']));
      if (req.method === 'POST' && req.url === '/v1/traces') {
        const body = JSON.parse(Buffer.concat(chunks).toString()) as OtlpExport;
        for (const resourceSpans of body.resourceSpans ?? []) {
          const name = resourceSpans.resource?.attributes?.find((a) => a.key === 'service.name');
          if (name?.value.stringValue) services.add(name.value.stringValue);
          for (const scope of resourceSpans.scopeSpans ?? [])
            for (const s of scope.spans ?? [])
              spans.push({
                traceId: hexId(s.traceId),
                spanId: hexId(s.spanId),
                parentSpanId: hexId(s.parentSpanId),
                name: s.name,
                attributes: Object.fromEntries(
                  (s.attributes ?? []).map((a) => [
                    a.key,
                    a.value.stringValue ?? a.value.intValue ?? a.value.boolValue,
                  ]),
                ),
              });
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    services,
    contentTypes,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Whether `span` is `ancestor` or lies under it, following parent links through the received spans. */
function descendsFrom(span: ReceivedSpan, ancestor: ReceivedSpan, all: ReceivedSpan[]): boolean {
  let current: ReceivedSpan | undefined = span;
  for (let depth = 0; current && depth < 50; depth++) {
    if (current.spanId === ancestor.spanId && current.traceId === ancestor.traceId) return true;
    const parentId: string = current.parentSpanId;
    current = all.find((s) => s.spanId === parentId && s.traceId === span.traceId);
  }
  return false;
}

/** The spans received, each with its parent's name: what a failing wait shows. */
const spanTree = (spans: ReceivedSpan[]) =>
  [
    ...new Set(
      spans.map(
        (s) =>
          `${s.name} <- ${spans.find((p) => p.spanId === s.parentSpanId)?.name ?? (s.parentSpanId ? '?' : 'root')}`,
      ),
    ),
  ].join(', ');

describe('traces over OTLP', () => {
  // Traces are the subject, not the store: a scratch PostgreSQL database, which a bot opens for about
  // a CPU-second less than PGlite (its WebAssembly compiled in each process).
  const world = useBotProcesses({ emulatorSpeed: 5, store: { database: scratchDatabase('bot_traces') } });
  let receiver: Awaited<ReturnType<typeof otlpReceiver>>;
  let traced: BotProcess | undefined;
  /** The bot exporting to the receiver: one for the tests that need it, whichever of them runs first. */
  const tracedBot = async () => {
    traced ??= await world.spawn(world.env({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }));
    return traced;
  };
  beforeAll(async () => {
    receiver = await otlpReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
  });

  it('a click and a poll: their service calls and Slack calls under them, `traceparent` sent with each', async () => {
    const { sandbox, emulator } = world;
    const bot = await tracedBot();
    const driver = sandbox.driver(bot.eventsUrl);
    const ws = sandbox.workspace;
    await driver.command({ user: ALICE, channel: CHANNEL, text: 'start scenario:approval trace the click' });
    const card = await ws.waitFor(
      () => (ws.messages.get(CHANNEL) ?? []).find((m) => !m.thread_ts && /trace the click/.test(textOf(m))),
      { what: 'the card' },
    );
    const prompt = await ws.waitFor(() => ws.replies(CHANNEL, card.ts).find(isPrompt), {
      what: 'the approval prompt',
      timeoutMs: WAIT_MS,
    });
    await driver.act({ user: ALICE, channel: CHANNEL, ts: prompt.ts, actionId: 'input_approve' });
    await ws.waitFor(() => /Approved by <@U0ALICE>/.test(textOf(ws.findMessage(CHANNEL, prompt.ts))), {
      what: 'the answered prompt',
    });
    const { spans } = receiver;
    // Spans arrive in batches, whatever Slack does meanwhile: checked on a timer, not on the sandbox's changes.
    const untilSpans = <T>(what: string, find: () => T | undefined) =>
      vi.waitFor(
        () => {
          const found = find();
          if (found === undefined) throw new Error(`${what}: not yet; spans received: ${spanTree(spans)}`);
          return found;
        },
        { timeout: WAIT_MS, interval: 200 },
      );

    // The click: a span for Slack's request; under it the answer sent to the service and the Slack call
    // that marks the prompt answered.
    const click = await untilSpans('the click’s spans', () => {
      const action = spans.find((s) => s.name === 'slack action input_approve');
      if (!action) return undefined;
      const answer = spans.find(
        (s) =>
          s.name === 'agent-service POST' && s.parentSpanId === action.spanId && s.traceId === action.traceId,
      );
      const update = spans.find((s) => s.name === 'slack chat.update' && descendsFrom(s, action, spans));
      return answer && update ? { action, answer, update } : undefined;
    });
    expect(click.action.parentSpanId).toBe('');
    expect(click.answer.attributes['url.path']).toMatch(/\/human-input\//);
    const sent = await emulator.admin.traceparents();
    expect(sent).toContainEqual({
      route: HUMAN_INPUT_ROUTE,
      traceparent: `00-${click.answer.traceId}-${click.answer.spanId}-01`,
    });

    // A poll: a root span; under it its requests to the service and the thread posts its events made.
    const poll = await untilSpans('a poll’s spans with a post under them', () => {
      for (const root of spans.filter((s) => s.name === 'follower poll' && s.parentSpanId === '')) {
        const reads = spans.filter(
          (s) =>
            s.name === 'agent-service GET' && s.parentSpanId === root.spanId && s.traceId === root.traceId,
        );
        const post = spans.find((s) => s.name === 'slack chat.postMessage' && descendsFrom(s, root, spans));
        if (reads.length > 0 && post) return { root, reads, post };
      }
      return undefined;
    });
    expect(poll.root.attributes['agent.session.id']).toMatch(/^sess_/);
    const pollHeaders = (await emulator.admin.traceparents()).map((r) => r.traceparent);
    for (const read of poll.reads) expect(pollHeaders).toContain(`00-${read.traceId}-${read.spanId}-01`);
    expect([...receiver.services]).toEqual(['agent-sessions-slack-bot']);
    expect([...receiver.contentTypes]).toEqual(['application/json']);
  });

  it('a `traceparent` on a Slack request is never taken: the request’s span starts a trace of its own', async () => {
    const { sandbox } = world;
    const bot = await tracedBot();
    const { spans } = receiver;
    const commands = () => spans.filter((s) => s.name === 'slack command /agent');
    // Spans of earlier commands arrived before the spans their tests waited for: what comes now is this test's.
    const before = commands().length;
    const foreignTrace = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
    const traceparent = `00-${foreignTrace}-0123456789abcdef-01`;
    const driver = sandbox.driver(bot.eventsUrl);
    // Signed as Slack signs (the signature does not cover headers), and forged: neither is taken.
    const forged = await driver.command(
      { user: ALICE, channel: CHANNEL, text: 'help' },
      { forgeSignature: true, extraHeaders: { traceparent } },
    );
    expect(forged.status).toBe(401);
    const signed = await driver.command(
      { user: ALICE, channel: CHANNEL, text: 'help' },
      { extraHeaders: { traceparent } },
    );
    expect(signed.status).toBe(200);
    // This `/agent help`'s span, once the batch with it arrives.
    await vi.waitFor(() => expect(commands().length).toBeGreaterThan(before), {
      timeout: WAIT_MS,
      interval: 200,
    });
    for (const span of commands()) expect(span.parentSpanId).toBe('');
    expect(spans.filter((s) => s.traceId === foreignTrace)).toEqual([]);
  });

  it('without an OTLP endpoint the bot sends no `traceparent`', async () => {
    const { sandbox, emulator } = world;
    // One bot at a time, so every call counted is the untraced one's: the traced one goes first (SIGTERM:
    // its spans flushed, its leases released).
    await traced?.kill('SIGTERM');
    const before = (await emulator.admin.traceparents()).length;
    const bot = await world.spawn(world.env());
    const driver = sandbox.driver(bot.eventsUrl);
    await driver.command({ user: ALICE, channel: CHANNEL, text: 'start scenario:complete untraced work' });
    const ws = sandbox.workspace;
    const card = await ws.waitFor(
      () => (ws.messages.get(CHANNEL) ?? []).find((m) => !m.thread_ts && /untraced work/.test(textOf(m))),
      { what: 'the card' },
    );
    await ws.waitFor(() => /Completed/.test(textOf(ws.findMessage(CHANNEL, card.ts))), {
      what: 'completion',
      timeoutMs: WAIT_MS,
    });
    const stats = await emulator.admin.stats();
    expect(Object.values(stats.requests).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    expect((await emulator.admin.traceparents()).length).toBe(before);
  });
});
