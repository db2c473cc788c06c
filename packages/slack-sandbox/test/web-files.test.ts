import { readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../src/index.js';

// The page's script is ES modules served as they are from web/: every module the page loads is served
// with its type, and nothing outside that folder is, however the path is spelled.
const WEB = new URL('../web/', import.meta.url);
let sandbox: RunningSandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ rateLimits: false });
});
afterAll(async () => {
  await sandbox?.close();
});

/** GET `path` exactly as written (fetch would tidy `..` away before sending). */
function get(path: string): Promise<{ status: number; type: string; body: string }> {
  const { hostname, port } = new URL(sandbox.url);
  return new Promise((resolve, reject) => {
    request({ hostname, port, path, method: 'GET' }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, type: String(response.headers['content-type']), body }),
      );
    })
      .on('error', reject)
      .end();
  });
}

/** The `/web/…` modules a script imports. */
const importsOf = (source: string): string[] =>
  [...source.matchAll(/^import [^;]+ from '(\/web\/[^']+)';$/gm)].map((m) => m[1] ?? '');

describe('the page’s files', () => {
  it('serves the page and every module it loads, as JavaScript, and each module of web/ is loaded', async () => {
    const page = await get('/');
    expect(page.type).toBe('text/html; charset=utf-8');
    const entry = /<script type="module" src="(\/web\/[^"]+)"><\/script>/.exec(page.body)?.[1];
    expect(entry).toBe('/web/client.js');
    const loaded = new Set<string>();
    const queue = [entry ?? ''];
    while (queue.length > 0) {
      const path = queue.shift() ?? '';
      if (loaded.has(path)) continue;
      loaded.add(path);
      // The block renderer is built from src/web/render.ts into dist/: the browser suite loads that one.
      if (path === '/web/render.js') continue;
      const module = await get(path);
      expect(module, path).toMatchObject({ status: 200, type: 'text/javascript; charset=utf-8' });
      expect(module.body).toBe(readFileSync(new URL(path.slice('/web/'.length), WEB), 'utf8'));
      queue.push(...importsOf(module.body));
    }
    const onDisk = readdirSync(WEB).filter((name) => name.endsWith('.js'));
    expect([...loaded].sort()).toEqual([...onDisk.map((name) => `/web/${name}`), '/web/render.js'].sort());
    expect(loaded.size).toBeGreaterThan(3);
    expect(await get('/web/style.css')).toMatchObject({ status: 200, type: 'text/css; charset=utf-8' });
  });

  it('serves the emoji font the style’s @font-face names: the npm package’s colour font, as a font', async () => {
    const style = (await get('/web/style.css')).body;
    const fontUrl = /@font-face \{[^}]*src: url\("(\/fonts\/[^"]+\.woff2)"\)/.exec(style)?.[1];
    expect(fontUrl).toBe('/fonts/noto-color-emoji.woff2');
    const answer = await fetch(new URL(fontUrl ?? '', sandbox.url));
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('font/woff2');
    const served = Buffer.from(await answer.arrayBuffer());
    const packaged = readFileSync(
      new URL(
        import.meta.resolve('@fontsource/noto-color-emoji/files/noto-color-emoji-emoji-400-normal.woff2'),
      ),
    );
    expect(served.subarray(0, 4).toString('latin1')).toBe('wOF2');
    expect(served.equals(packaged)).toBe(true);
  });

  it.each([
    '/web/..%2Fpackage.json',
    '/web/%2e%2e%2fpackage.json',
    '/web/%2E%2E%2F%2E%2E%2Fpackage.json',
    '/web/..%5cpackage.json',
    '/web/../package.json',
    '/web/../src/index.ts',
    '/web/index.html',
    '/web/.client.js',
    '/web/missing.js',
    '/web/client.js.map',
    '/web/client.JS',
  ])('%s is not served', async (path) => {
    const answer = await get(path);
    expect(answer.status).toBe(404);
    expect(answer.body).not.toMatch(/"name"|import |<html/);
  });
});
