import type { HttpBindings } from '@hono/node-server';
import type { Engine } from './agent/engine.js';
import type { Faults } from './faults.js';
import type { Account } from './model.js';
import type { PresentOptions } from './present.js';
import type { Scheduler } from './scheduler.js';
import type { Store } from './store.js';

/** What every route can reach. */
export interface Deps {
  store: Store;
  engine: Engine;
  scheduler: Scheduler;
  faults: Faults;
  present: PresentOptions;
}

export interface Env {
  Bindings: Partial<HttpBindings>;
  Variables: { account: Account };
}
