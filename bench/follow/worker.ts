import { readFileSync, writeFileSync } from 'node:fs';
import { AgentSessionsClient, Follower, type SessionsReader } from '@agent-sessions/core';
import { runBaseline } from './baseline.js';
import type { Group, Received, WorkerInput, WorkerOutput } from './protocol.js';

const [inputPath, outputPath] = process.argv.slice(2);
if (!inputPath || !outputPath) throw new Error('usage: worker <input.json> <output.json>');
const input = JSON.parse(readFileSync(inputPath, 'utf8')) as WorkerInput;

const gc = (globalThis as { gc?: () => void }).gc;
gc?.();
const heapBefore = process.memoryUsage().heapUsed;
const rssBefore = process.memoryUsage().rss;
let peakRss = rssBefore;
const rssTimer = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
}, 200);

const client = new AgentSessionsClient({ baseUrl: input.baseUrl, apiKey: input.apiKey, timeoutMs: 30_000 });
const groupOf = new Map<string, Group>(input.sessions.map((s) => [s.sessionId, s.group]));
const requestsByGroup: Record<Group, number> = { running: 0, waiting: 0, quiet: 0 };
let requestsTotal = 0;
const countRequest = (sessionId: string) => {
  requestsTotal++;
  if (Date.now() < input.measureFrom) return;
  const group = groupOf.get(sessionId);
  if (group) requestsByGroup[group]++;
};
const received: Received[] = [];
const onMessage = (sessionId: string, key: string): void => {
  received.push(['m', sessionId, key, Date.now()]);
};
const onHumanInput = (sessionId: string, inputId: string): void => {
  received.push(['h', sessionId, inputId, Date.now()]);
};

let cpuStart = process.cpuUsage();
let heapAfterFollow = heapBefore;
const measureTimer = setTimeout(
  () => {
    cpuStart = process.cpuUsage();
  },
  Math.max(0, input.measureFrom - Date.now()),
);

if (input.mode === 'ours') {
  // Every request the follower sends, counted where it is made.
  const counting: SessionsReader = {
    sessions: {
      get: (id, options) => {
        countRequest(id);
        return client.sessions.get(id, options);
      },
      messages: (id, query, options) => {
        countRequest(id);
        return client.sessions.messages(id, query, options);
      },
    },
  };
  const follower = new Follower({ client: counting, requestsPerSecond: input.budgetRps });
  follower.on('message', (e) => {
    onMessage(e.sessionId, e.key);
  });
  follower.on('human_input_needed', (e) => {
    onHumanInput(e.sessionId, e.request.inputId);
  });
  for (const s of input.sessions) await follower.follow(s.sessionId);
  gc?.();
  heapAfterFollow = process.memoryUsage().heapUsed;
  follower.start();
  await new Promise((r) => setTimeout(r, Math.max(0, input.stopAt - Date.now())));
  await follower.stop();
} else {
  await runBaseline(
    client,
    input.sessions.map((s) => s.sessionId),
    input.budgetRps,
    input.stopAt,
    { onMessage, onHumanInput },
    countRequest,
  );
}

clearInterval(rssTimer);
clearTimeout(measureTimer);
const cpu = process.cpuUsage(cpuStart);
const output: WorkerOutput = {
  mode: input.mode,
  received,
  requestsByGroup,
  requestsTotal,
  cpuSeconds: (cpu.user + cpu.system) / 1e6,
  peakRssBytes: peakRss,
  rssBeforeBytes: rssBefore,
  heapAfterFollowBytes: heapAfterFollow,
  heapBeforeBytes: heapBefore,
};
writeFileSync(outputPath, JSON.stringify(output));
await client.close();
process.exit(0);
