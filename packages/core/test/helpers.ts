import {
  type SpawnEmulatorOptions,
  type SpawnedEmulator,
  spawnEmulator,
} from '@agent-sessions/emulator/testing';
import { AgentSessionsClient, type ClientOptions } from '../src/index.js';

export const KEY_A = 'sk_test_alpha_3f9c1d';
export const KEY_B = 'sk_test_bravo_7a2e44';
export const KEY_NO_INTEGRATION = 'sk_test_nointegration_91';

export async function startEmulator(options: SpawnEmulatorOptions = {}): Promise<SpawnedEmulator> {
  return spawnEmulator({
    apiKeys: [KEY_A, KEY_B],
    keysWithoutIntegration: [KEY_NO_INTEGRATION],
    clock: 'manual',
    ...options,
  });
}

export function clientFor(
  emulator: SpawnedEmulator,
  options: Partial<ClientOptions> = {},
): AgentSessionsClient {
  return new AgentSessionsClient({ baseUrl: emulator.url, apiKey: KEY_A, ...options });
}

/** Moves the manual clock until `done` says so (bounded). */
export async function advanceUntil(
  emulator: SpawnedEmulator,
  done: () => Promise<boolean>,
  { stepMs = 500, maxSteps = 400 } = {},
): Promise<void> {
  for (let i = 0; i < maxSteps; i++) {
    if (await done()) return;
    await emulator.admin.advance(stepMs);
  }
  throw new Error(`condition not reached after ${maxSteps} steps of ${stepMs} ms`);
}

/** Total requests the emulator received for a route key like `POST /v1/sessions`. */
export async function requestsTo(emulator: SpawnedEmulator, route: string): Promise<number> {
  return (await emulator.admin.stats()).requests[route] ?? 0;
}
