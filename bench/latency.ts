/**
 * A Slack that is not the sandbox's instant one: an HTTP proxy in front of its Web API that holds each
 * request, and each answer, for a time drawn between `min` and `max` ms, as the internet and Slack's own
 * servers do. Slack counts a call against its limits when the call reaches it, so calls sent a steady
 * second apart can arrive closer together than that, and a bot pacing by its own clock must allow for it.
 */
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Latency {
  min: number;
  max: number;
}

/** `--latency 80-400` (ms each way), or `0` for none; a bad one stops the bench, naming it. */
export function latencyOption(raw: string | undefined): Latency {
  const match = /^(\d+)(?:-(\d+))?$/.exec(raw ?? '');
  const min = Number(match?.[1]);
  const max = Number(match?.[2] ?? match?.[1]);
  if (!match || !(max >= min))
    throw new Error(`--latency must be milliseconds each way, "<ms>" or "<min>-<max>", got "${raw}"`);
  return { min, max };
}

const draw = ({ min, max }: Latency) => min + Math.random() * (max - min);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Proxies `apiUrl` (the sandbox's Web API) with `latency` each way; the proxy's URL for the bot. */
export async function latencyProxy(
  apiUrl: string,
  latency: Latency,
): Promise<{ url: string; close(): Promise<void> }> {
  const target = new URL(apiUrl);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      await sleep(draw(latency));
      const path = `${target.pathname.replace(/\/$/, '')}${req.url ?? ''}`;
      const out = request(
        { host: target.hostname, port: target.port, path, method: req.method, headers: req.headers },
        async (answer) => {
          const body: Buffer[] = [];
          for await (const chunk of answer) body.push(chunk as Buffer);
          await sleep(draw(latency));
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          res.end(Buffer.concat(body));
        },
      );
      out.on('error', () => {
        res.writeHead(502);
        res.end();
      });
      out.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
