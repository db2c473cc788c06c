import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Engine } from './agent/engine.js';
import { createApp } from './app.js';
import { ManualClock, realClock } from './clock.js';
import { type EmulatorConfig, isLoopback } from './config.js';
import type { Deps } from './context.js';
import { Faults, seededRandom } from './faults.js';
import { noQuirks } from './quirks.js';
import { Scheduler } from './scheduler.js';
import { Store } from './store.js';

export type EmulatorOptions = Partial<Omit<EmulatorConfig, 'faults'>> & { faults?: EmulatorConfig['faults'] };

export interface RunningEmulator {
  url: string;
  port: number;
  deps: Deps;
  close(): Promise<void>;
}

/** Builds the emulator's parts from options (defaults for anything left out). */
export function createEmulator(options: EmulatorOptions = {}): Deps {
  const clock = options.clock === 'manual' ? new ManualClock() : realClock(options.speed ?? 1);
  const scheduler = new Scheduler(clock);
  const store = new Store(options.apiKeys ?? ['emu_dev_key'], options.keysWithoutIntegration ?? []);
  const quirks = options.quirks ?? noQuirks();
  const engine = new Engine(store, scheduler, clock, {
    humanInputShape: options.humanInputShape ?? 'message',
    quirks,
  });
  const faults = new Faults(options.faults ?? {}, seededRandom(options.seed ?? Date.now()));
  return {
    store,
    engine,
    scheduler,
    faults,
    present: {
      timestamps: options.timestamps ?? 'iso',
      terminalSpelling: options.terminalSpelling ?? 'status',
      quirks,
      now: () => clock.now(),
    },
  };
}

/** Listens on `host:port` (port 0 picks a free one). */
export function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const deps = createEmulator(options);
  const host = options.host ?? '127.0.0.1';
  const app = createApp(deps, { loopbackOnly: isLoopback(host) });
  return new Promise((resolve, reject) => {
    const server = serve(
      { fetch: app.fetch, port: options.port ?? 4010, hostname: host },
      (info: AddressInfo) => {
        const shownHost = host.includes(':') ? `[${host}]` : host;
        resolve({
          url: `http://${shownHost}:${info.port}`,
          port: info.port,
          deps,
          close: () =>
            new Promise<void>((done) => {
              deps.scheduler.close();
              server.close(() => done());
              // Keep-alive sockets would hold close() open.
              if ('closeAllConnections' in server) server.closeAllConnections();
            }),
        });
      },
    );
    server.once('error', reject);
  });
}
