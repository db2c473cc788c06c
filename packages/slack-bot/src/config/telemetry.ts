/**
 * Traces: on when an OTLP endpoint is set, under OpenTelemetry's own variable names. The exporter reads
 * them (and OTEL_EXPORTER_OTLP_HEADERS, OTEL_SERVICE_NAME…) itself; here they are checked and decide
 * whether the SDK is loaded at all.
 */
import { z } from 'zod';
import { blankAsUnset } from './fields.js';

const otlpUrl = (name: string) =>
  blankAsUnset(
    z
      .string()
      .refine((raw) => /^https?:\/\//.test(raw) && URL.canParse(raw), `${name} must be an http(s) URL`)
      .optional(),
  );

export const telemetrySchema = z.object({
  OTEL_EXPORTER_OTLP_ENDPOINT: otlpUrl('OTEL_EXPORTER_OTLP_ENDPOINT'),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: otlpUrl('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'),
});

export interface TelemetryConfig {
  /** Spans are exported over OTLP/HTTP (JSON) to the endpoint the variables name. */
  traces: boolean;
}

export function telemetrySettings(env: z.output<typeof telemetrySchema>): { telemetry: TelemetryConfig } {
  return {
    telemetry: {
      traces:
        env.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT !== undefined,
    },
  };
}
