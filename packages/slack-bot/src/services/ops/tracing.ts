/**
 * The bot's spans, through OpenTelemetry's API alone. Without an SDK registered (OTEL_EXPORTER_OTLP_ENDPOINT
 * unset: see telemetry.ts) every call here is the API's no-op: no span is made, no context is kept.
 */
import type { RequestTracer } from '@agent-sessions/core';
import { type Attributes, context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { FetchFunction } from '@slack/web-api';

const TRACER_NAME = 'agent-sessions-slack-bot';
const tracer = () => trace.getTracer(TRACER_NAME);

/** Runs `work` in a new span, a child of the active one: ended with its outcome, an error marked so. */
export function inSpan<T>(
  name: string,
  options: { kind?: SpanKind; attributes?: Attributes },
  work: () => Promise<T>,
): Promise<T> {
  return tracer().startActiveSpan(name, options, async (span) => {
    try {
      return await work();
    } catch (error) {
      span.recordException(error instanceof Error ? error : String(error));
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  });
}

/**
 * `work` bound to the span active now, wherever it runs later: a call queued for Slack is a child of
 * whatever queued it (a click, a poll), not of whatever happens to send the queue's next call.
 */
export function boundToCaller<T>(work: () => Promise<T>): () => Promise<T> {
  return context.bind(context.active(), work);
}

/**
 * A Slack request (command, action, view, event): what Bolt's middleware runs inside, always the root of
 * a trace of its own. An incoming `traceparent` is never taken: Slack sends none, and Slack's signature
 * covers the timestamp and body, not the headers, so a verified request's `traceparent` is still anyone's
 * (a proxy's, or an attacker's choosing the trace id and forcing sampling) and could graft the bot's spans
 * onto a trace someone else chose.
 */
export function slackRequestSpan(body: object, next: () => Promise<void>): Promise<void> {
  const { name, attributes } = describeSlackRequest(body as Record<string, unknown>);
  return context.with(trace.deleteSpan(context.active()), () =>
    inSpan(name, { kind: SpanKind.SERVER, attributes }, next),
  );
}

function describeSlackRequest(body: Record<string, unknown>): { name: string; attributes: Attributes } {
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  if (typeof body.command === 'string') {
    return { name: `slack command ${body.command}`, attributes: { 'slack.command': body.command } };
  }
  if (body.type === 'event_callback' && typeof body.event === 'object' && body.event !== null) {
    const type = text((body.event as Record<string, unknown>).type) ?? 'unknown';
    return { name: `slack event ${type}`, attributes: { 'slack.event.type': type } };
  }
  if (body.type === 'block_actions' && Array.isArray(body.actions)) {
    const action = text((body.actions[0] as Record<string, unknown> | undefined)?.action_id) ?? 'unknown';
    return { name: `slack action ${action}`, attributes: { 'slack.action_id': action } };
  }
  if (body.type === 'view_submission' || body.type === 'view_closed') {
    const view = body.view as Record<string, unknown> | undefined;
    const callback = text(view?.callback_id) ?? 'unknown';
    return { name: `slack view ${callback}`, attributes: { 'slack.view.callback_id': callback } };
  }
  const type = text(body.type) ?? 'unknown';
  return { name: `slack ${type}`, attributes: { 'slack.request.type': type } };
}

/** Each poll of the follower, its service calls and whatever its events make the bot post. */
export function pollSpan(sessionId: string, poll: () => Promise<void>): Promise<void> {
  // A poll is a root: nothing the bot was doing when its timer fired is its cause.
  return context.with(trace.deleteSpan(context.active()), () =>
    inSpan('follower poll', { attributes: { 'agent.session.id': sessionId } }, poll),
  );
}

/** A client span per request to the service, its context sent as W3C `traceparent`. */
export const serviceRequestTracer: RequestTracer = {
  start({ method, path, attempt }) {
    const span = tracer().startSpan(`agent-service ${method}`, {
      kind: SpanKind.CLIENT,
      attributes: {
        'http.request.method': method,
        'url.path': path,
        'http.request.resend_count': attempt - 1,
      },
    });
    const headers: Record<string, string> = {};
    propagation.inject(trace.setSpan(context.active(), span), headers);
    return {
      headers,
      end({ status, error }) {
        if (status !== undefined) span.setAttribute('http.response.status_code', status);
        if (error !== undefined && (status === undefined || status >= 500))
          span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      },
    };
  },
};

/** A Web API client's options: traced `fetch` when traces are on, nothing otherwise. */
export function slackFetchOption(traces: boolean): { fetch?: FetchFunction } {
  return traces ? { fetch: tracedFetch() } : {};
}

/** Slack's Web API over `fetch`: a client span per call, named by its method (`chat.postMessage`). */
export function tracedFetch(fetchImpl: FetchFunction = globalThis.fetch as FetchFunction): FetchFunction {
  return (url, init) => {
    const method = new URL(String(url)).pathname.split('/').pop() ?? 'unknown';
    return inSpan(
      `slack ${method}`,
      { kind: SpanKind.CLIENT, attributes: { 'slack.method': method } },
      async () => {
        const response = await fetchImpl(url, init);
        trace.getActiveSpan()?.setAttribute('http.response.status_code', response.status);
        return response;
      },
    );
  };
}
