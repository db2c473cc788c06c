import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boltLogger, createLogger } from '../../../src/logger.js';
import { SecretScrubber } from '../../../src/secret-scrubber.js';
import { KeyCipher } from '../../../src/services/keys/index.js';
import { scrubbingExporter } from '../../../src/services/ops/span-scrubbing.js';
import { inSpan } from '../../../src/services/ops/tracing.js';

// A workspace's token or a linked service key is in no setting: the bot learns it when it decrypts it.
// From then on it must be masked wherever it turns up inside a string: a line Bolt stringified, an
// error's message, a span's exception.

const encryptionKey = randomBytes(32);
const OWNER = 'agent-sessions slack installation T0NORTH bot.token';
/** Stored by another replica (or before this process started): this process has never seen it. */
const token = `xoxb-${randomBytes(12).toString('hex')}`;
const stored = new KeyCipher(encryptionKey).encrypt(token, OWNER);

function capturedLogger(scrubber: SecretScrubber) {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: createLogger({ secrets: [], scrubber, destination }), lines };
}

describe('a secret the bot decrypts', () => {
  it('is masked inside a line Bolt logs as a string, once decrypted', () => {
    const scrubber = new SecretScrubber();
    const { logger, lines } = capturedLogger(scrubber);
    const bolt = boltLogger(logger);
    bolt.error(`An API error occurred: invalid_auth (token ${token})`);
    expect(lines.join('')).toContain(token); // not known yet: nothing to mask it by

    expect(new KeyCipher(encryptionKey, [], scrubber).decrypt(stored, OWNER)).toBe(token);
    bolt.error(`An API error occurred: invalid_auth (token ${token})`, { token });
    const last = lines.at(-1) ?? '';
    expect(last).not.toContain(token);
    expect(last).toContain('(token [redacted])');
  });

  it('a refreshed token is masked, and the one it replaced stays masked', () => {
    const scrubber = new SecretScrubber();
    const cipher = new KeyCipher(encryptionKey, [], scrubber);
    cipher.decrypt(stored, OWNER);
    const refreshed = `xoxb-${randomBytes(12).toString('hex')}`;
    cipher.encrypt(refreshed, OWNER); // sealed on its way to the store, right after the exchange
    expect(scrubber.scrub(`old ${token} new ${refreshed}`)).toBe('old [redacted] new [redacted]');
  });
});

describe('spans on their way out', () => {
  const memory = new InMemorySpanExporter();
  const scrubber = new SecretScrubber();
  const provider = new TracerProvider({
    spanProcessors: [
      new SimpleSpanProcessor({ exporter: scrubbingExporter(memory, (t) => scrubber.scrub(t)) }),
    ],
  });
  beforeAll(() => {
    trace.setGlobalTracerProvider(provider);
  });
  afterAll(() => {
    trace.disable();
  });

  it('carry no decrypted key in an exception, an attribute or the status', async () => {
    const key = `sk_live_${randomBytes(12).toString('hex')}`;
    const keyOwner = 'agent-sessions service key T0NORTH';
    const cipher = new KeyCipher(encryptionKey, [], scrubber);
    cipher.decrypt(cipher.encrypt(key, keyOwner), keyOwner);
    await expect(
      inSpan('agent-service GET', { attributes: { 'url.full': `http://svc/?key=${key}` } }, async () => {
        throw new Error(`the service refused key ${key}`);
      }),
    ).rejects.toThrow(key);
    await provider.forceFlush();
    const [span] = memory.getFinishedSpans();
    const exported = JSON.stringify({
      attributes: span?.attributes,
      events: span?.events,
      status: span?.status,
    });
    expect(exported).toContain('the service refused key [redacted]');
    expect(exported).toContain('http://svc/?key=[redacted]');
    expect(exported).not.toContain(key);
  });
});

describe('the scrubber', () => {
  it('masks the longest of secrets that share their start, and leaves short values alone', () => {
    const scrubber = new SecretScrubber();
    scrubber.remember('a', 'abcdefgh-1');
    scrubber.remember('b', 'abcdefgh-1234');
    scrubber.remember('c', 'short');
    expect(scrubber.scrub('x abcdefgh-1234 y abcdefgh-1 z short')).toBe('x [redacted] y [redacted] z short');
  });
});
