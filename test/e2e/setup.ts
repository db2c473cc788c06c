import { Agent, setGlobalDispatcher } from 'undici';
import { beforeAll } from 'vitest';
import { beginFileLogs } from './harness.js';

// Every e2e file runs this first, in a worker it may share with other files (`isolate: false`): modules
// are loaded once per worker, this file is run again before each test file.

// The tests' own requests (the sandbox's driver posting to the bot as Slack does, /metrics, /healthz, the
// emulator's admin API) open a connection each instead of reusing an idle one: side by side on a busy
// machine, a kept-alive connection was sometimes reused just as the bot's server closed it (ECONNRESET on
// /agent start). Connection reuse is not what these suites test; the bot's own clients keep their agents.
setGlobalDispatcher(new Agent({ pipelining: 0 }));

// Each file reads the log lines of its own bots only: not those an earlier file's bot writes as it stops.
beforeAll(beginFileLogs);
