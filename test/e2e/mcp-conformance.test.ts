import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patient } from '../support/patience.js';
import { ALICE, useHarness } from './harness.js';
import { tokenFromHome } from './mcp-client.js';

// The MCP conformance suite (@modelcontextprotocol/conformance) against the real bot's /mcp, its active
// server scenarios in one run: those that apply to a server with our tools must pass, and those that don't
// are listed, each with why, in conformance/not-applicable.yml (the suite's own baseline: a listed one
// that passes fails the run too). The suite's client sends no Authorization header, so it reaches the bot
// through a local proxy that adds Alice's token, as a host configured with one does.
const APPLIES = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];

const SUITE = fileURLToPath(
  new URL('../../node_modules/@modelcontextprotocol/conformance/dist/index.js', import.meta.url),
);
const NOT_APPLICABLE = fileURLToPath(new URL('./conformance/not-applicable.yml', import.meta.url));
/** Node 20 lacks fs.globSync, which the suite imports (and never calls for a server run). */
const GLOB_SYNC_HOOK = fileURLToPath(new URL('./conformance/node20.mjs', import.meta.url));

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
}

/** The proxy's address, known before the bot starts: its Origin is the one page the bot allows. */
const env: Record<string, string> = { MCP_REQUESTS_PER_MINUTE: '1000' };
const upstream = { url: '', token: '' };
let proxy: Server;
let proxyUrl = '';
let reports = '';

/** Forwards each request to the bot's /mcp with the token added; everything else as sent. */
function tokenProxy(): Server {
  return createServer((req, res) => {
    const headers = {
      ...req.headers,
      host: new URL(upstream.url).host,
      authorization: `Bearer ${upstream.token}`,
    };
    // A connection of its own each time: Node's global agent keeps sockets alive, and one the bot is closing
    // as idle (its keep-alive timeout) can be picked for the next request on a busy machine: ECONNRESET.
    const forwarded = request(upstream.url, { method: req.method, headers, agent: false }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forwarded.on('error', () => res.writeHead(502).end());
    req.pipe(forwarded);
  });
}

beforeAll(async () => {
  proxy = tokenProxy();
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  // DNS rebinding: the suite's "valid localhost" request comes with the proxy's own Origin.
  env.MCP_ALLOWED_ORIGINS = proxyUrl;
});
const h = useHarness({ env });
beforeAll(async () => {
  reports = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
  upstream.url = `${h.bot.url}/mcp`;
  upstream.token = await tokenFromHome(h.sandbox, h.driver, ALICE);
});
afterAll(async () => {
  await new Promise<void>((resolve) => (proxy ? proxy.close(() => resolve()) : resolve()));
  if (reports) rmSync(reports, { recursive: true, force: true });
});

/** The suite's run: its exit code and output, and each scenario's checks from the reports it writes. */
function runSuite(): Promise<{ code: number; output: string; checks: Map<string, Check[]> }> {
  const args = ['--import', GLOB_SYNC_HOOK, SUITE, 'server', '--url', `${proxyUrl}/mcp`];
  args.push('--expected-failures', NOT_APPLICABLE, '-o', reports);
  return new Promise((resolve) => {
    execFile(process.execPath, args, { timeout: patient(120_000) }, (error, stdout, stderr) => {
      const checks = new Map<string, Check[]>();
      for (const file of readdirSync(reports, { recursive: true, encoding: 'utf8' })) {
        if (!file.endsWith('checks.json')) continue;
        // Each scenario's report is in server-<scenario>-<ISO time>/.
        const folder = file.split(/[\\/]/).at(-2) ?? '';
        const name = folder.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, '');
        checks.set(name, JSON.parse(readFileSync(join(reports, file), 'utf8')) as Check[]);
      }
      const code = typeof error?.code === 'number' ? error.code : error ? 1 : 0;
      resolve({ code, output: `${stdout}\n${stderr}`, checks });
    });
  });
}

describe('the MCP conformance suite against /mcp', () => {
  it('passes every scenario that applies to a server with our tools; the others are listed, and fail', async () => {
    const run = await runSuite();
    for (const name of APPLIES) {
      const checks = run.checks.get(name) ?? [];
      expect(checks.length, `${name} ran (reports: ${[...run.checks.keys()].join(', ')})`).toBeGreaterThan(0);
      const bad = checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
      expect(bad, name).toEqual([]);
    }
    // The baseline holds: nothing else fails, and nothing listed passes.
    expect(run.code, run.output.slice(-2_000)).toBe(0);
  });
});
