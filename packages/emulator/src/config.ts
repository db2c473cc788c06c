import { parseArgs } from 'node:util';
import { z } from 'zod';
import { parseQuirks, QUIRK_NAMES, type Quirks, QuirksError } from './quirks.js';

const list = (raw: string | undefined) =>
  (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

const numberFrom = (name: string, opts: { min?: number; max?: number; int?: boolean } = {}) =>
  z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw === '') return undefined;
      const n = Number(raw);
      const bad =
        !Number.isFinite(n) ||
        (opts.int && !Number.isInteger(n)) ||
        (opts.min !== undefined && n < opts.min) ||
        (opts.max !== undefined && n > opts.max);
      if (bad) {
        const range = `${opts.min ?? '-∞'}..${opts.max ?? '∞'}`;
        ctx.addIssue({
          code: 'custom',
          message: `${name} must be ${opts.int ? 'an integer' : 'a number'} in ${range}, got "${raw}"`,
        });
        return z.NEVER;
      }
      return n;
    });

const oneOf = <T extends string>(name: string, values: readonly T[]) =>
  z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw === '') return undefined;
      if (!(values as readonly string[]).includes(raw)) {
        ctx.addIssue({
          code: 'custom',
          message: `${name} must be one of ${values.join(', ')}, got "${raw}"`,
        });
        return z.NEVER;
      }
      return raw as T;
    });

export interface EmulatorConfig {
  port: number;
  host: string;
  apiKeys: string[];
  keysWithoutIntegration: string[];
  speed: number;
  clock: 'real' | 'manual';
  humanInputShape: 'message' | 'tool_call';
  terminalSpelling: 'status' | 'polling';
  timestamps: 'iso' | 'epoch_ms' | 'epoch_s' | 'firestore';
  seed: number;
  quirks: Quirks;
  faults: {
    rate429?: number;
    retryAfterSeconds?: number;
    burst5xx?: number;
    status5xx?: 500 | 502 | 503;
    latencyMs?: number;
    dropRate?: number;
  };
}

export const DEFAULT_API_KEY = 'emu_dev_key';

export class ConfigError extends Error {}

/** 127.0.0.0/8, ::1 and localhost: reachable from this machine only. */
export const isLoopback = (host: string) =>
  host === 'localhost' || host === '::1' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);

export const USAGE = `Usage: agent-sessions-emulator [--port P] [--host H] [--speed N] [--clock real|manual]
                              [--quirks all|q1,q2]

Environment:
  EMULATOR_PORT, EMULATOR_HOST        where to listen (default 4010, 127.0.0.1; never the bot's PORT/HOST)
  EMULATOR_API_KEYS                   comma-separated keys, one account each (default ${DEFAULT_API_KEY})
  EMULATOR_KEYS_WITHOUT_INTEGRATION   keys whose account has no integration (create -> 404)
  EMULATOR_SPEED                      time factor (default 1; 20 = twenty times faster)
  EMULATOR_CLOCK                      real | manual (time moves only via POST /_emulator/advance)
  EMULATOR_HUMAN_INPUT_SHAPE          message | tool_call
  EMULATOR_TERMINAL_SPELLING          status (completed/error) | polling (complete/failed)
  EMULATOR_TIMESTAMPS                 iso | epoch_ms | epoch_s | firestore
  EMULATOR_SEED                       seed for fault randomness
  EMULATOR_QUIRKS, --quirks           behaviours the spec allows, off by default: all, or a comma list of
                                      ${QUIRK_NAMES.slice(1).join(', ')}
  EMULATOR_FAULT_RATE_429, EMULATOR_FAULT_RETRY_AFTER, EMULATOR_FAULT_BURST_5XX,
  EMULATOR_FAULT_STATUS_5XX, EMULATOR_FAULT_LATENCY_MS, EMULATOR_FAULT_DROP_RATE`;

/** Reads flags and environment once; a bad value is one message naming the variable. */
export function loadConfig(argv: string[], env: NodeJS.ProcessEnv): EmulatorConfig | 'help' {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      speed: { type: 'string' },
      clock: { type: 'string' },
      quirks: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) return 'help';
  const schema = z.object({
    port: numberFrom('--port / EMULATOR_PORT', { min: 0, max: 65535, int: true }),
    speed: numberFrom('--speed / EMULATOR_SPEED', { min: 0.01, max: 10_000 }),
    clock: oneOf('--clock / EMULATOR_CLOCK', ['real', 'manual'] as const),
    shape: oneOf('EMULATOR_HUMAN_INPUT_SHAPE', ['message', 'tool_call'] as const),
    spelling: oneOf('EMULATOR_TERMINAL_SPELLING', ['status', 'polling'] as const),
    timestamps: oneOf('EMULATOR_TIMESTAMPS', ['iso', 'epoch_ms', 'epoch_s', 'firestore'] as const),
    seed: numberFrom('EMULATOR_SEED', { int: true }),
    rate429: numberFrom('EMULATOR_FAULT_RATE_429', { min: 0, max: 1 }),
    retryAfter: numberFrom('EMULATOR_FAULT_RETRY_AFTER', { min: 0, int: true }),
    burst5xx: numberFrom('EMULATOR_FAULT_BURST_5XX', { min: 0, int: true }),
    status5xx: numberFrom('EMULATOR_FAULT_STATUS_5XX', { min: 500, max: 503, int: true }),
    latency: numberFrom('EMULATOR_FAULT_LATENCY_MS', { min: 0, max: 120_000, int: true }),
    dropRate: numberFrom('EMULATOR_FAULT_DROP_RATE', { min: 0, max: 1 }),
  });
  const parsed = schema.safeParse({
    port: values.port ?? env.EMULATOR_PORT,
    speed: values.speed ?? env.EMULATOR_SPEED,
    clock: values.clock ?? env.EMULATOR_CLOCK,
    shape: env.EMULATOR_HUMAN_INPUT_SHAPE,
    spelling: env.EMULATOR_TERMINAL_SPELLING,
    timestamps: env.EMULATOR_TIMESTAMPS,
    seed: env.EMULATOR_SEED,
    rate429: env.EMULATOR_FAULT_RATE_429,
    retryAfter: env.EMULATOR_FAULT_RETRY_AFTER,
    burst5xx: env.EMULATOR_FAULT_BURST_5XX,
    status5xx: env.EMULATOR_FAULT_STATUS_5XX,
    latency: env.EMULATOR_FAULT_LATENCY_MS,
    dropRate: env.EMULATOR_FAULT_DROP_RATE,
  });
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((i) => i.message).join('\n'));
  const v = parsed.data;
  if (v.status5xx !== undefined && ![500, 502, 503].includes(v.status5xx)) {
    throw new ConfigError(`EMULATOR_FAULT_STATUS_5XX must be 500, 502 or 503, got "${v.status5xx}"`);
  }
  let quirks: Quirks;
  try {
    quirks = parseQuirks(values.quirks ?? env.EMULATOR_QUIRKS, '--quirks / EMULATOR_QUIRKS');
  } catch (error) {
    if (error instanceof QuirksError) throw new ConfigError(error.message);
    throw error;
  }
  const apiKeys = list(env.EMULATOR_API_KEYS);
  // Its own variable: the bot's HOST is 0.0.0.0 in production and must not expose the emulator.
  const host = values.host || env.EMULATOR_HOST || '127.0.0.1';
  if (!isLoopback(host) && apiKeys.length === 0) {
    throw new ConfigError(
      `--host / EMULATOR_HOST ${host} lets other machines in: set EMULATOR_API_KEYS to keys of your own (the default ${DEFAULT_API_KEY} is published)`,
    );
  }
  return {
    port: v.port ?? 4010,
    host,
    apiKeys: apiKeys.length > 0 ? apiKeys : [DEFAULT_API_KEY],
    keysWithoutIntegration: list(env.EMULATOR_KEYS_WITHOUT_INTEGRATION),
    speed: v.speed ?? 1,
    clock: v.clock ?? 'real',
    humanInputShape: v.shape ?? 'message',
    terminalSpelling: v.spelling ?? 'status',
    timestamps: v.timestamps ?? 'iso',
    seed: v.seed ?? Date.now(),
    quirks,
    faults: {
      ...(v.rate429 !== undefined ? { rate429: v.rate429 } : {}),
      ...(v.retryAfter !== undefined ? { retryAfterSeconds: v.retryAfter } : {}),
      ...(v.burst5xx !== undefined ? { burst5xx: v.burst5xx } : {}),
      ...(v.status5xx !== undefined ? { status5xx: v.status5xx as 500 | 502 | 503 } : {}),
      ...(v.latency !== undefined ? { latencyMs: v.latency } : {}),
      ...(v.dropRate !== undefined ? { dropRate: v.dropRate } : {}),
    },
  };
}
