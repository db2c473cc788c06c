import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patient } from '../../../test/support/patience.js';
import { type RunningSandbox, startSandbox } from '../src/index.js';
import { botClient } from './bot-client.js';

// What a stranger can do to a sandbox: nothing with a secret they could know, nothing from a web page
// the developer happens to visit, and no body bigger than 1 MB.
let sandbox: RunningSandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ rateLimits: false });
});
afterAll(async () => {
  await sandbox?.close();
});

/** Carol joins #agents: a `/sandbox/command` that changes the workspace without any bot. */
const join = (
  headers: Record<string, string>,
  body = '{"user":"U0CAROL","channel":"C0AGENTS","command":"/join"}',
) => fetch(`${sandbox.url}/sandbox/command`, { method: 'POST', headers, body });
const carolIn = () => sandbox.workspace.members('C0AGENTS')?.includes('U0CAROL') ?? false;

describe('secrets', () => {
  it('are new at each start: no constant signs as the sandbox or calls its Web API', async () => {
    const other = await startSandbox({ rateLimits: false });
    try {
      for (const running of [sandbox, other]) {
        expect(running.signingSecret).toMatch(/^[0-9a-f]{48}$/);
        expect(running.botToken).toMatch(/^xoxb-sandbox-[0-9a-f]{48}$/);
        expect(running.appToken).toMatch(/^xapp-sandbox-[0-9a-f]{48}$/);
      }
      expect(other.signingSecret).not.toBe(sandbox.signingSecret);
      expect(other.botToken).not.toBe(sandbox.botToken);
      const stranger = botClient({ apiUrl: sandbox.apiUrl, botToken: 'xoxb-sandbox-token' });
      await expect(stranger.auth.test()).rejects.toMatchObject({ data: { error: 'invalid_auth' } });
    } finally {
      await other.close();
    }
  });

  it('given ones are kept (tests pin them)', async () => {
    const pinned = await startSandbox({ signingSecret: 's3', botToken: 'xoxb-1', rateLimits: false });
    expect({ s: pinned.signingSecret, t: pinned.botToken }).toEqual({ s: 's3', t: 'xoxb-1' });
    await pinned.close();
  });
});

describe('its CLI', () => {
  it('listens on the loopback whatever the bot’s HOST and PORT say; SANDBOX_HOST/SANDBOX_PORT are its own', async () => {
    const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
    const child = spawn(process.execPath, [cli], {
      env: { PATH: process.env.PATH ?? '', HOST: '0.0.0.0', PORT: '1', SANDBOX_PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
      });
      await expect.poll(() => out, { timeout: patient(10_000) }).toMatch(/SLACK_SIGNING_SECRET=/);
      const port = Number(/listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out)?.[1]);
      // What the kernel says it is bound to (the printed URL shows a wildcard address by its loopback).
      const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
      const bound = ['tcp', 'tcp6']
        .flatMap((table) => readFileSync(`/proc/${child.pid}/net/${table}`, 'utf8').split('\n'))
        .map((line) => line.trim().split(/\s+/))
        .filter((fields) => fields[3] === '0A' && fields[1]?.endsWith(`:${hexPort}`))
        .map((fields) => fields[1]?.split(':')[0]);
      expect(bound).toEqual(['0100007F']);
      expect(out).toMatch(/SLACK_SIGNING_SECRET=[0-9a-f]{48}\n/);
    } finally {
      child.kill('SIGTERM');
    }
  });
});

describe('web pages the developer visits (CSRF)', () => {
  it('a /sandbox/* action that is not JSON is refused (a page can send text/plain without asking)', async () => {
    const plain = await join({ 'content-type': 'text/plain' });
    expect(plain.status).toBe(415);
    expect(await plain.json()).toEqual({
      ok: false,
      error: 'content-type must be application/json, got "text/plain"',
    });
    const form = await fetch(`${sandbox.url}/sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'method=chat.postMessage&error=fatal_error',
    });
    expect(form.status).toBe(415);
    expect(carolIn()).toBe(false);
    expect(sandbox.faults.list()).toEqual([]);
  });

  it('a request from another origin is refused, even as JSON and even through a rebound DNS name', async () => {
    const port = new URL(sandbox.url).port;
    for (const origin of ['https://evil.example', 'null', `http://evil.example:${port}`]) {
      const response = await join({ 'content-type': 'application/json', origin });
      expect(response.status, origin).toBe(403);
      expect(await response.json()).toMatchObject({
        error: expect.stringContaining(`requests from ${origin}`),
      });
    }
    const rebound = await new Promise<number>((resolve, reject) => {
      // A page on evil.example whose name now points at 127.0.0.1: its Host and Origin agree.
      const req = request(
        `${sandbox.url}/sandbox/faults`,
        {
          method: 'DELETE',
          headers: { host: `evil.example:${port}`, origin: `http://evil.example:${port}` },
        },
        (res) => resolve(res.statusCode ?? 0),
      );
      req.on('error', reject);
      req.end();
    });
    expect(rebound).toBe(403);
    expect(carolIn()).toBe(false);
  });

  it('a rebound DNS name can’t read it either: a loopback sandbox answers its address and localhost only', async () => {
    const port = new URL(sandbox.url).port;
    const get = (host: string, base = sandbox.url) =>
      new Promise<number>((resolve, reject) => {
        const req = request(`${base}/sandbox/state`, { headers: { host } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });
    expect(await get(`evil.example:${port}`)).toBe(403);
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `app.localhost:${port}`])
      expect(await get(host), host).toBe(200);
    // Bound beyond the loopback on purpose (SANDBOX_HOST), it may be reached by any name.
    const wide = await startSandbox({ host: '0.0.0.0', rateLimits: false });
    try {
      expect(await get('devbox.lan', wide.url)).toBe(200);
    } finally {
      await wide.close();
    }
  });

  it('the sandbox’s own page (by its URL or localhost) and clients without an Origin act', async () => {
    const port = new URL(sandbox.url).port;
    const json = { 'content-type': 'application/json; charset=utf-8' };
    expect((await join({ ...json, origin: `http://localhost:${port}` })).status).toBe(200);
    expect(carolIn()).toBe(true);
    const leave = '{"user":"U0CAROL","channel":"C0AGENTS","command":"/leave"}';
    expect((await join({ ...json, origin: new URL(sandbox.url).origin }, leave)).status).toBe(200);
    expect(carolIn()).toBe(false);
    expect((await join(json)).status).toBe(200);
    expect(carolIn()).toBe(true);
  });
});

describe('body limit', () => {
  /** Headers for `declared` bytes (or chunked when undefined) and `sent` bytes of body, never ending it. */
  const unfinished = (path: string, declared: number | undefined, sent: number) =>
    new Promise<number>((resolve, reject) => {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (declared !== undefined) headers['content-length'] = String(declared);
      const req = request(`${sandbox.url}${path}`, { method: 'POST', headers }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
        req.destroy();
      });
      req.on('error', reject);
      req.flushHeaders();
      for (let at = 0; at < sent; at += 64 * 1024) req.write(Buffer.alloc(64 * 1024, 0x20));
    });

  it('a body announced over 1 MB is answered 413 at once; a chunked one once it passes 1 MB', async () => {
    expect(await unfinished('/sandbox/say', 2 * 1024 * 1024, 0)).toBe(413);
    expect(await unfinished('/sandbox/say', undefined, 1536 * 1024)).toBe(413);
    expect(await unfinished('/api/chat.postMessage', undefined, 1536 * 1024)).toBe(413);
  });

  it('a 2 MB file upload still goes through (long agent text goes out as a file)', async () => {
    const content = 'x'.repeat(2 * 1024 * 1024);
    const result = await botClient(sandbox).filesUploadV2({
      channel_id: 'C0AGENTS',
      content,
      filename: 'big.txt',
    });
    expect(result.ok).toBe(true);
  });
});
