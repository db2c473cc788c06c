import { context, propagation, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { inSpan, slackRequestSpan } from '../../../src/services/ops/tracing.js';

// A Slack request's span is the root of a trace of its own, whatever context it arrives in: were an HTTP
// instrumentation to take the request's `traceparent` (Slack's signature doesn't cover headers), the bot's
// spans still would not join a trace someone else chose. test/e2e/traces.test.ts sends one to a bot process.

const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
const FOREIGN_TRACE = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
});

afterAll(() => {
  trace.disable();
  propagation.disable();
  context.disable();
});

it('a Slack request in a context carrying a remote `traceparent` starts a trace of its own', async () => {
  const remote = propagation.extract(ROOT_CONTEXT, {
    traceparent: `00-${FOREIGN_TRACE}-0123456789abcdef-01`,
  });
  // The remote parent is there to be taken: a span made the ordinary way joins its trace.
  await context.with(remote, () => inSpan('ordinary', {}, async () => {}));
  await context.with(remote, () =>
    slackRequestSpan({ command: '/agent' }, () => inSpan('handler', {}, async () => {})),
  );
  await provider.forceFlush();
  const spans = exporter.getFinishedSpans();
  const byName = (name: string) => spans.find((s) => s.name === name);
  expect(byName('ordinary')?.spanContext().traceId).toBe(FOREIGN_TRACE);
  const request = byName('slack command /agent');
  expect(request?.parentSpanContext).toBeUndefined();
  expect(request?.spanContext().traceId).not.toBe(FOREIGN_TRACE);
  // What the request does stays under it.
  expect(byName('handler')?.parentSpanContext?.spanId).toBe(request?.spanContext().spanId);
});
