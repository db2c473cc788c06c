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

  it('exits 2 naming an unknown quirk, from EMULATOR_QUIRKS or --quirks', () => {
    const env = spawnSync(process.execPath, [CLI], {
      env: { ...process.env, EMULATOR_QUIRKS: 'nulls,wobbly' },
      encoding: 'utf8',
    });
    expect(env.status).toBe(2);
    expect(env.stderr).toMatch(/--quirks \/ EMULATOR_QUIRKS: unknown quirk "wobbly"; valid quirks: all,/);
    const flag = spawnSync(process.execPath, [CLI, '--quirks', 'all,sideways'], { encoding: 'utf8' });
    expect(flag.status).toBe(2);
    expect(flag.stderr).toMatch(/unknown quirk "sideways"/);
  });

  it("passes the test process's EMULATOR_QUIRKS to the child, unless the test sets its own", async () => {
    const saved = process.env.EMULATOR_QUIRKS;
    process.env.EMULATOR_QUIRKS = 'nulls,after=message-position';
    try {
      const inherited = await spawnEmulator({ apiKeys: ['k1'] });
      const overridden = await spawnEmulator({ apiKeys: ['k1'], quirks: '' });
      const chosen = await spawnEmulator({ apiKeys: ['k1'], quirks: 'extra-fields' });
      try {
        expect(await inherited.admin.quirks()).toEqual(['nulls', 'after=message-position']);
        expect(await overridden.admin.quirks()).toEqual(['after=round-created']);
        expect(await chosen.admin.quirks()).toEqual(['extra-fields', 'after=round-created']);
        expect(await chosen.admin.setQuirks('all')).toContain('concurrent-rounds');
      } finally {
        await Promise.all([inherited.close(), overridden.close(), chosen.close()]);
      }
    } finally {
      if (saved === undefined) delete process.env.EMULATOR_QUIRKS;
      else process.env.EMULATOR_QUIRKS = saved;
    }
  });

  it('runs a session to its end over real HTTP with every quirk on', async () => {
    const emulator = await spawnEmulator({ apiKeys: ['k1'], speed: 40, quirks: 'all' });
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${emulator.url}${path}`, {
        method,
        headers: { authorization: 'Bearer k1', 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return (await res.json()) as Record<string, unknown>;
    };
    try {
      const { sessionId } = await call('POST', '/v1/sessions', { goal: 'scenario:approval x' });
      const until = async (done: (status: string) => boolean) => {
        for (;;) {
          const s = await call('GET', `/v1/sessions/${sessionId}`);
          if (done(String(s.status))) return s;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      };
      const waiting = await until(
        (s) => s === 'waiting_human' || ['complete', 'failed', 'cancelled'].includes(s),
      );
      expect(waiting.status).toBe('waiting_human');
      const rounds = waiting.rounds as Array<{ trigger: string; humanInput: { inputId: string } | null }>;
      const asking = rounds.findIndex((r) => r.humanInput);
      expect(rounds[asking]?.trigger).toBe('subagent');
      expect(asking).toBeLessThan(rounds.length - 1);
      const ack = await call(
        'POST',
        `/v1/sessions/${sessionId}/human-input/${rounds[asking]?.humanInput?.inputId}`,
        {
          approved: true,
        },
      );
      expect(ack).toMatchObject({ status: 'responded', respondedAt: { _seconds: expect.any(Number) } });
      const done = await until((s) => ['complete', 'failed', 'cancelled'].includes(s));
      expect(done).toMatchObject({
        status: 'complete',
        error: null,
        completionReport: { summary: expect.stringMatching(/Deployed/) },
      });
    } finally {
      await emulator.close();
    }
  });

  it('prints usage for --help', () => {
    const run = spawnSync(process.execPath, [CLI, '--help'], { encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/EMULATOR_API_KEYS/);
    expect(run.stdout).toMatch(/EMULATOR_QUIRKS, --quirks .*\n.*concurrent-rounds/);
  });
});
