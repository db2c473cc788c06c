import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { alertNames, dashboardExpressions, metricNames } from '../deploy/monitoring.js';
import { useBotProcesses } from '../e2e/bot-process.js';
import { patient } from '../support/patience.js';
import { requireTool } from './tools.js';

// A running bot scraped by a real Prometheus (Debian's package, installed by .ci/run), as a cluster's
// would: every metric an alert rule or the dashboard names must be there, or the alert could never fire
// and the panel stays empty. The same Prometheus loads deploy/monitoring/alerts.yaml and evaluates every
// rule against the bot's series, and takes every dashboard query.
const METRICS_TOKEN = `metrics_${randomBytes(12).toString('hex')}`;
const monitoringDir = fileURLToPath(new URL('../../deploy/monitoring/', import.meta.url));

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });

describe('a running bot, scraped by Prometheus', () => {
  beforeAll(() => requireTool('prometheus', ['--version'], 'apt-get install prometheus'));
  const world = useBotProcesses({ emulatorSpeed: 1, store: { dataDirPrefix: 'deploy-scrape-' } });
  const dir = mkdtempSync(join(tmpdir(), 'deploy-prometheus-'));
  let prometheus: ChildProcess | undefined;
  const output: string[] = [];
  afterAll(() => {
    prometheus?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'serves every metric the alert rules and the dashboard name, and every rule and panel runs on them',
    async () => {
      const bot = await world.spawn(world.env({ METRICS_TOKEN }));
      const target = new URL(bot.eventsUrl).host;
      const port = await freePort();
      writeFileSync(
        join(dir, 'prometheus.yml'),
        [
          'global: { scrape_interval: 1s, evaluation_interval: 1s }',
          `rule_files: ['${monitoringDir}alerts.yaml']`,
          'scrape_configs:',
          '  - job_name: agent-sessions-bot',
          '    authorization: { credentials_file: token }',
          `    static_configs: [{ targets: ['${target}'] }]`,
        ].join('\n'),
      );
      writeFileSync(join(dir, 'token'), METRICS_TOKEN);
      prometheus = spawn(
        'prometheus',
        [
          `--config.file=${join(dir, 'prometheus.yml')}`,
          `--storage.tsdb.path=${join(dir, 'data')}`,
          `--web.listen-address=127.0.0.1:${port}`,
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      prometheus.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
      const query = async (path: string) => {
        const response = await fetch(`http://127.0.0.1:${port}${path}`);
        return (await response.json()) as { data: unknown };
      };
      // Up, and scraped with the token: a refused bearer would be `up 0`.
      await vi.waitFor(
        async () => {
          const { data } = (await query('/api/v1/query?query=up')) as {
            data: { result: { value: [number, string] }[] };
          };
          expect(data.result.map((r) => r.value[1])).toEqual(['1']);
        },
        { timeout: patient(60_000), interval: 250 },
      );
      const { data: names } = (await query('/api/v1/label/__name__/values')) as { data: string[] };
      const wanted = [...new Set([...metricNames('alerts'), ...metricNames('dashboard')])];
      expect(wanted.length).toBeGreaterThanOrEqual(10);
      // A histogram is stored as its _bucket, _sum and _count series.
      const missing = wanted.filter((name) => !names.includes(name) && !names.includes(`${name}_count`));
      expect(missing, output.join('').slice(-2000)).toEqual([]);
      // Every rule loaded and evaluated without error ('unknown' until its first evaluation).
      await vi.waitFor(
        async () => {
          const { data } = (await query('/api/v1/rules')) as {
            data: { groups: { rules: { name: string; health: string; lastError?: string }[] }[] };
          };
          const rules = data.groups.flatMap((g) => g.rules);
          expect(rules.map((r) => r.name).sort()).toEqual(alertNames().sort());
          expect(rules.filter((r) => r.health !== 'ok')).toEqual([]);
        },
        { timeout: patient(30_000), interval: 250 },
      );
      // Every dashboard panel's query is one this Prometheus accepts.
      for (const expr of dashboardExpressions()) {
        const answer = (await query(`/api/v1/query?query=${encodeURIComponent(expr)}`)) as {
          status?: string;
          error?: string;
        };
        expect(answer, expr).toMatchObject({ status: 'success' });
      }
    },
    patient(120_000),
  );
});
