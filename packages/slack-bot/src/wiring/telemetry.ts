/**
 * Traces exported over OTLP/HTTP (JSON), only when an endpoint is set (OTEL_EXPORTER_OTLP_ENDPOINT or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT). The SDK is imported then and only then: a bot without traces loads
 * OpenTelemetry's API alone, whose calls are no-ops (services/ops/tracing.ts).
 */
import { context, propagation, trace } from '@opentelemetry/api';
import type { SecretScrubber } from '../secret-scrubber.js';
import { scrubbingExporter } from '../services/ops/span-scrubbing.js';

export interface Tracing {
  /** Sends the spans still buffered, then stops exporting. */
  shutdown(): Promise<void>;
}

const off: Tracing = { shutdown: async () => {} };

/** `secrets`: what no exported span may carry (exceptions, attributes: span-scrubbing.ts). */
export async function startTracing(
  settings: { traces: boolean },
  secrets: Pick<SecretScrubber, 'scrub'>,
): Promise<Tracing> {
  if (!settings.traces) return off;
  const [{ AsyncLocalStorageContextManager }, { W3CTraceContextPropagator }, resources, sdk, otlp] =
    await Promise.all([
      import('@opentelemetry/context-async-hooks'),
      import('@opentelemetry/core'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/sdk-trace'),
      import('@opentelemetry/exporter-trace-otlp-http'),
    ]);
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over the bot's own name, as OpenTelemetry says.
  const resource = resources
    .resourceFromAttributes({ 'service.name': 'agent-sessions-slack-bot' })
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const provider = new sdk.TracerProvider({
    resource,
    spanProcessors: [
      new sdk.BatchSpanProcessor({
        exporter: scrubbingExporter(new otlp.OTLPTraceExporter(), (text) => secrets.scrub(text)),
      }),
    ],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  return {
    shutdown: async () => {
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}
