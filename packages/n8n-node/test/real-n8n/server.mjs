// n8n as a server for the real-n8n run, and the bounded waiting every step of it uses: `n8n start` on a
// free port with its log kept, the owner its REST API needs, and fetches and polls that always end.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/** Every request bounded: a page n8n never answers fails the run instead of hanging it. */
export const fetch = (url, init = {}) => globalThis.fetch(url, { signal: AbortSignal.timeout(30_000), ...init });

/** Polls `read` until `done` holds, at most `seconds`: every wait in this run is bounded. */
export async function until(what, read, done, seconds = 60) {
  const deadline = Date.now() + seconds * 1000;
  let last;
  while (Date.now() < deadline) {
    try {
      last = await read();
      if (done(last)) return last;
    } catch (error) {
      last = error;
    }
    await sleep(300);
  }
  throw new Error(`Gave up after ${seconds} s waiting for ${what} (last: ${String(last?.message ?? JSON.stringify(last)).slice(0, 300)})`);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** `n8n start` on a free port; its log is kept to show when something fails. */
export async function startN8n(n8n, env) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = spawn(n8n, ['start'], {
    env: { ...env, N8N_PORT: String(port), N8N_LISTEN_ADDRESS: '127.0.0.1', WEBHOOK_URL: `${base}/`, N8N_HOST: '127.0.0.1', N8N_SECURE_COOKIE: 'false' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk) => {
    output = (output + chunk).slice(-200_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const stop = async () => {
    if (child.exitCode !== null) return;
    child.kill('SIGTERM');
    const code = await Promise.race([exited, sleep(20_000).then(() => 'timeout')]);
    if (code === 'timeout') {
      child.kill('SIGKILL');
      await exited;
    }
  };
  return { base, stop, log: () => output, exited };
}


/** The owner n8n's REST API needs to stop an execution: set up once, then its cookie and browser id. */
export async function ownerSession(base) {
  const browserId = 'agent-sessions-real-n8n-test';
  const response = await fetch(`${base}/rest/owner/setup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'browser-id': browserId },
    body: JSON.stringify({ email: 'owner@agent-sessions.test', firstName: 'Test', lastName: 'Owner', password: 'Real-n8n-test-1' }),
  });
  const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0];
  if (response.status !== 200 || !cookie.startsWith('n8n-auth=')) {
    throw new Error(`owner setup answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
  }
  const headers = { cookie, 'browser-id': browserId };
  return {
    get: async (path) => (await fetch(`${base}${path}`, { headers })).json(),
    post: async (path) => fetch(`${base}${path}`, { method: 'POST', headers }),
    postJson: async (path, body) =>
      (await fetch(`${base}${path}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) })).json(),
  };
}


/** The owner signed in again (after a restart of n8n): the same cookie-and-browser-id client. */
export async function ownerLogin(base) {
  const browserId = 'agent-sessions-real-n8n-test';
  const response = await fetch(`${base}/rest/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'browser-id': browserId },
    body: JSON.stringify({ emailOrLdapLoginId: 'owner@agent-sessions.test', password: 'Real-n8n-test-1' }),
  });
  const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0];
  if (response.status !== 200 || !cookie.startsWith('n8n-auth=')) {
    throw new Error(`login answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
  }
  const headers = { cookie, 'browser-id': browserId };
  return {
    get: async (path) => (await fetch(`${base}${path}`, { headers })).json(),
    post: async (path) => fetch(`${base}${path}`, { method: 'POST', headers }),
    postJson: async (path, body) =>
      (await fetch(`${base}${path}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) })).json(),
  };
}
