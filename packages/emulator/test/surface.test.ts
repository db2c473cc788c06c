import { spawnSync } from 'node:child_process';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { type SpawnedEmulator, spawnEmulator } from '../src/testing.js';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

describe('where the emulator listens', () => {
  it('on the loopback unless EMULATOR_HOST says otherwise; the bot’s HOST is not its variable', () => {
    expect(loadConfig([], { HOST: '0.0.0.0', PORT: '3000' })).toMatchObject({
      host: '127.0.0.1',
      port: 4010,
    });
    expect(loadConfig([], { EMULATOR_HOST: '::1', EMULATOR_PORT: '0' })).toMatchObject({
      host: '::1',
      port: 0,
    });
  });

  it('refuses to listen beyond the loopback with the published key', () => {
    const run = spawnSync(process.execPath, [CLI, '--port', '0'], {
      env: { PATH: process.env.PATH ?? '', EMULATOR_HOST: '0.0.0.0' },
      encoding: 'utf8',
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/EMULATOR_HOST 0\.0\.0\.0 lets other machines in: set EMULATOR_API_KEYS/);
    expect(
      loadConfig([], { EMULATOR_HOST: '0.0.0.0', EMULATOR_API_KEYS: 'mine_1' }) as { apiKeys: string[] },
    ).toMatchObject({ host: '0.0.0.0', apiKeys: ['mine_1'] });
  });
});

describe('requests the emulator refuses', () => {
  let emulator: SpawnedEmulator;
  beforeAll(async () => {
    emulator = await spawnEmulator({ apiKeys: ['k1'] });
  });
  afterAll(() => emulator?.close());

  /** Sends headers announcing `declared` bytes (or chunked) and `sent` bytes of body, never ending it. */
  const unfinished = (path: string, headers: Record<string, string>, sent: number) =>
    new Promise<number>((resolve, reject) => {
      const req = request(`${emulator.url}${path}`, { method: 'POST', headers }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
        req.destroy();
      });
      req.on('error', reject);
      req.flushHeaders();
      for (let at = 0; at < sent; at += 64 * 1024) req.write(Buffer.alloc(64 * 1024, 0x20));
    });

  it('a body announced over 1 MB: 413 at once, before any of it arrives', async () => {
    const headers = {
      'content-type': 'application/json',
      'x-service-key': 'k1',
      'content-length': '2097152',
    };
    expect(await unfinished('/v1/sessions', headers, 0)).toBe(413);
  });

  it('a chunked body: 413 once it passes 1 MB, without waiting for its end', async () => {
    const headers = { 'content-type': 'application/json', 'x-service-key': 'k1' };
    expect(await unfinished('/v1/sessions', headers, 1536 * 1024)).toBe(413);
  });

  it('a rebound DNS name reads nothing: a loopback emulator answers its address and localhost only', async () => {
    const port = new URL(emulator.url).port;
    const get = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request(`${emulator.url}/_emulator/sessions`, { headers: { host } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });
    expect(await get(`evil.example:${port}`)).toBe(403);
    expect(await get(`localhost:${port}`)).toBe(200);
    expect(await get(`127.0.0.1:${port}`)).toBe(200);
  });

  it('an admin change from a web page (Origin) is refused; from a client it is not', async () => {
    const change = (headers: Record<string, string>) =>
      fetch(`${emulator.url}/_emulator/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ rate429: 0 }),
      });
    const fromPage = await change({ origin: 'https://evil.example' });
    expect(fromPage.status).toBe(403);
    expect(await fromPage.json()).toMatchObject({
      error: 'the admin routes take no requests from web pages',
    });
    expect((await change({})).status).toBe(200);
  });
});
