import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { FaultConfig } from './faults.js';
import type { EmulatorEvent } from './store.js';

export interface SpawnEmulatorOptions {
  apiKeys?: string[];
  keysWithoutIntegration?: string[];
  speed?: number;
  clock?: 'real' | 'manual';
  humanInputShape?: 'message' | 'tool_call';
  terminalSpelling?: 'status' | 'polling';
  timestamps?: 'iso' | 'epoch_ms' | 'epoch_s' | 'firestore';
  /**
   * `EMULATOR_QUIRKS` of the child: `all`, a comma list, or `''` for none. Left out, the child gets the
   * test process's own `EMULATOR_QUIRKS`, so a suite can be run again with `EMULATOR_QUIRKS=all`.
   */
  quirks?: string;
  env?: Record<string, string>;
  /**
   * How long to wait for the listening line. Default 60 s: it takes a fifth of a second alone, so the limit
   * only says "stuck", even on a machine busy with a whole test suite. (It gives up at once if the child
   * exits.)
   */
  startTimeoutMs?: number;
}

export interface AdminSession {
  sessionId: string;
  accountId: string;
  scenario: string;
  goal: string;
  context: Record<string, unknown> | null;
  maxCostPerSession: number | null;
  maxIterations: number;
  status: string;
  cost: { totalCost: number; totalTokens: number; promptTokens: number; completionTokens: number };
  rounds: Array<Record<string, unknown>>;
  messageCount: number;
  pendingInput: Record<string, unknown> | null;
  /** Every question asked, and the answer body as it arrived once answered. */
  humanInputs: Array<{ inputId: string; kind: string; status: string; answer?: Record<string, unknown> }>;
  createdAt: string;
}

export interface EmulatorStats {
  requests: Record<string, number>;
  byKeyIndex: Record<string, number>;
  sessions: number;
  scheduledSteps: number;
}

/** A typed client of the emulator's /_emulator endpoints. */
export class EmulatorAdmin {
  constructor(readonly url: string) {}

  async #call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${this.url}/_emulator${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const payload = (await response.json()) as T & { error?: string };
    if (!response.ok)
      throw new Error(`emulator admin ${method} ${path}: ${response.status} ${payload.error ?? ''}`);
    return payload;
  }

  /** Manual clock: moves time forward and runs the scripted agents. */
  advance(ms: number): Promise<{ now: number }> {
    return this.#call('POST', '/advance', { ms });
  }
  setFaults(faults: Partial<FaultConfig>): Promise<FaultConfig> {
    return this.#call('POST', '/faults', faults);
  }
  clearFaults(): Promise<FaultConfig> {
    return this.#call('DELETE', '/faults');
  }
  async sessions(): Promise<AdminSession[]> {
    return (await this.#call<{ sessions: AdminSession[] }>('GET', '/sessions')).sessions;
  }
  async session(sessionId: string): Promise<AdminSession | undefined> {
    return (await this.sessions()).find((s) => s.sessionId === sessionId);
  }
  async events(options: { after?: number; sessionId?: string } = {}): Promise<EmulatorEvent[]> {
    const query = new URLSearchParams();
    if (options.after !== undefined) query.set('after', String(options.after));
    if (options.sessionId !== undefined) query.set('sessionId', options.sessionId);
    return (await this.#call<{ events: EmulatorEvent[] }>('GET', `/events?${query}`)).events;
  }
  stats(): Promise<EmulatorStats> {
    return this.#call('GET', '/stats');
  }
  /** The `traceparent` header of the latest requests that carried one, by route (`GET /v1/sessions/:id`). */
  async traceparents(): Promise<Array<{ route: string; traceparent: string }>> {
    return (
      await this.#call<{ requests: Array<{ route: string; traceparent: string }> }>('GET', '/traceparents')
    ).requests;
  }
  /** The quirks in force (names as `EMULATOR_QUIRKS` takes them; the `after` reading always listed). */
  async quirks(): Promise<string[]> {
    return (await this.#call<{ quirks: string[] }>('GET', '/quirks')).quirks;
  }
  /** Replaces the quirks: `all`, a comma list, or `''` for none. */
  async setQuirks(quirks: string): Promise<string[]> {
    return (await this.#call<{ quirks: string[] }>('POST', '/quirks', { quirks })).quirks;
  }
  /** A key for a signed-up account (POST /api/auth/signup first), as the service's app would make one. */
  mintKey(email: string): Promise<{ key: string; accountId: string; keyIndex: number }> {
    return this.#call('POST', '/keys', { email });
  }
  /** Revokes a key made by `mintKey`: every request with it answers 401 from now on. */
  revokeKey(key: string): Promise<{ revoked: true }> {
    return this.#call('POST', '/keys/revoke', { key });
  }
  reset(): Promise<{ ok: true }> {
    return this.#call('POST', '/reset');
  }
}

/** An emulator the tests reach over HTTP: where it listens, its keys, its admin API, and how to stop it. */
export interface TestEmulator {
  url: string;
  apiKeys: string[];
  admin: EmulatorAdmin;
  close(): Promise<void>;
}

/** The emulator as a child process (`spawnEmulator`). */
export interface SpawnedEmulator extends TestEmulator {
  process: ChildProcess;
}

/** The keys an emulator for tests accepts when none are given. */
const DEFAULT_TEST_KEYS = ['emu_test_key'];

// From src/ (tests) and from dist/ alike, the CLI that runs is the built one.
const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const LISTENING = /listening on (http:\/\/\S+)/;

/** Spawns the real emulator CLI as a child process on a free port and waits until it listens. */
export function spawnEmulator(options: SpawnEmulatorOptions = {}): Promise<SpawnedEmulator> {
  const apiKeys = options.apiKeys ?? DEFAULT_TEST_KEYS;
  const env = emulatorEnv(options, apiKeys);
  const child = spawn(process.execPath, [CLI, '--port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`emulator did not start within ${options.startTimeoutMs ?? 60_000} ms\n${stderr}`));
    }, options.startTimeoutMs ?? 60_000);
    const onExit = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`emulator exited with code ${code} before listening\n${stderr}`));
    };
    child.once('exit', onExit);
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const url = LISTENING.exec(stdout)?.[1];
      if (!url) return;
      clearTimeout(timer);
      child.off('exit', onExit);
      child.stdout?.removeAllListeners('data');
      child.stdout?.resume();
      resolve({
        url,
        apiKeys,
        admin: new EmulatorAdmin(url),
        process: child,
        close: () => stopChild(child),
      });
    });
  });
}

/**
 * The emulator in this process, configured as `spawnEmulator` configures its child: the same options over
 * this process's environment (so `EMULATOR_QUIRKS` and the rest reach it alike), read by the CLI's own
 * `loadConfig`, serving real HTTP on a free loopback port. For suites that start one per file: a child
 * costs about 0.3 CPU-s to start, where this costs its server only (the modules load once per process).
 * Its clock and timers run on this process's event loop.
 */
export async function startEmulatorHere(options: SpawnEmulatorOptions = {}): Promise<TestEmulator> {
  const apiKeys = options.apiKeys ?? DEFAULT_TEST_KEYS;
  const [{ loadConfig }, { startEmulator }] = await Promise.all([
    import('./config.js'),
    import('./server.js'),
  ]);
  const config = loadConfig(['--port', '0'], emulatorEnv(options, apiKeys));
  if (config === 'help') throw new Error('unreachable: no --help given');
  const running = await startEmulator(config);
  return { url: running.url, apiKeys, admin: new EmulatorAdmin(running.url), close: () => running.close() };
}

/** The environment the emulator reads: this process's, with the options over it, and no PORT. */
function emulatorEnv(options: SpawnEmulatorOptions, apiKeys: string[]): Record<string, string> {
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    EMULATOR_API_KEYS: apiKeys.join(','),
    EMULATOR_KEYS_WITHOUT_INTEGRATION: (options.keysWithoutIntegration ?? []).join(','),
    EMULATOR_SPEED: String(options.speed ?? 1),
    EMULATOR_CLOCK: options.clock ?? 'real',
    EMULATOR_HUMAN_INPUT_SHAPE: options.humanInputShape ?? 'message',
    EMULATOR_TERMINAL_SPELLING: options.terminalSpelling ?? 'status',
    EMULATOR_TIMESTAMPS: options.timestamps ?? 'iso',
    ...(options.quirks !== undefined ? { EMULATOR_QUIRKS: options.quirks } : {}),
    ...options.env,
  };
  delete env.PORT;
  return env;
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
