/**
 * Spans scrubbed of secrets on their way out: an exception's message and stack (a Slack or service error
 * may quote a token or a key), every string attribute, the status message and the name. The exporter is
 * the one place every span passes, whoever recorded what (our spans, the traced fetch, an instrumentation).
 */
import type { Attributes, AttributeValue } from '@opentelemetry/api';
import type { ReadableSpan, SpanExporter, TimedEvent } from '@opentelemetry/sdk-trace';

type Scrub = (text: string) => string;

function scrubValue(value: AttributeValue | undefined, scrub: Scrub): AttributeValue | undefined {
  if (typeof value === 'string') return scrub(value);
  if (Array.isArray(value))
    return value.map((item) => (typeof item === 'string' ? scrub(item) : item)) as AttributeValue;
  return value;
}

function scrubAttributes(attributes: Attributes, scrub: Scrub): Attributes {
  return Object.fromEntries(
    Object.entries(attributes).map(([name, value]) => [name, scrubValue(value, scrub)]),
  );
}

/** A copy of `span` as the exporter reads it, every text in it scrubbed. */
export function scrubbedSpan(span: ReadableSpan, scrub: Scrub): ReadableSpan {
  const events = span.events.map(
    (event): TimedEvent => ({
      ...event,
      ...(event.attributes ? { attributes: scrubAttributes(event.attributes, scrub) } : {}),
    }),
  );
  return {
    name: scrub(span.name),
    kind: span.kind,
    spanContext: () => span.spanContext(),
    ...(span.parentSpanContext ? { parentSpanContext: span.parentSpanContext } : {}),
    startTime: span.startTime,
    endTime: span.endTime,
    status:
      span.status.message === undefined
        ? span.status
        : { ...span.status, message: scrub(span.status.message) },
    attributes: scrubAttributes(span.attributes, scrub),
    links: span.links,
    events,
    duration: span.duration,
    ended: span.ended,
    resource: span.resource,
    instrumentationScope: span.instrumentationScope,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
}

/** `exporter` given each span scrubbed (scrubbedSpan). */
export function scrubbingExporter(exporter: SpanExporter, scrub: Scrub): SpanExporter {
  return {
    export: (spans, done) =>
      exporter.export(
        spans.map((span) => scrubbedSpan(span, scrub)),
        done,
      ),
    shutdown: () => exporter.shutdown(),
    ...(exporter.forceFlush ? { forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve() } : {}),
  };
}
