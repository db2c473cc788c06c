import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { spawnEmulator } from '../src/testing.js';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

describe('the emulator process', () => {
  it('starts on a free port, serves the contract, and closes', async () => {
    const emulator = await spawnEmulator({ apiKeys: ['k1'] });
    const health = await fetch(`${emulator.url}/healthz`);
    expect(health.status).toBe(200);
    const created = await fetch(`${emulator.url}/v1/sessions`, {
      method: 'POST',
      headers: { 'x-service-key': 'k1', 'content-type': 'application/json' },
      body: JSON.stringify({ goal: 'hello' }),
    });
    expect(created.status).toBe(201);
    expect(await emulator.admin.stats()).toMatchObject({ sessions: 1, requests: { 'POST /v1/sessions': 1 } });
    await emulator.close();
    expect(emulator.process.exitCode ?? emulator.process.signalCode).not.toBeNull();
  });

  it('drops a connection without answering when told to', async () => {
    const emulator = await spawnEmulator({ apiKeys: ['k1'] });
    await emulator.admin.setFaults({ dropNext: 1 });
    const error = await fetch(`${emulator.url}/v1/sessions/x`, { headers: { 'x-service-key': 'k1' } }).catch(
      (e) => e,
    );
    expect(error).toBeInstanceOf(TypeError);
    expect(
      (await fetch(`${emulator.url}/v1/sessions/x`, { headers: { 'x-service-key': 'k1' } })).status,
    ).toBe(404);
    await emulator.close();
  });

  it('exits 2 with one message naming a bad variable', () => {
    const run = spawnSync(process.execPath, [CLI], {
      env: { ...process.env, EMULATOR_SPEED: 'fast' },
      encoding: 'utf8',
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/EMULATOR_SPEED must be a number/);
    const flag = spawnSync(process.execPath, [CLI, '--clock', 'sideways'], { encoding: 'utf8' });
    expect(flag.status).toBe(2);
    expect(flag.stderr).toMatch(/--clock \/ EMULATOR_CLOCK must be one of real, manual/);
  });

  it('prints usage for --help', () => {
    const run = spawnSync(process.execPath, [CLI, '--help'], { encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/EMULATOR_API_KEYS/);
  });
});
