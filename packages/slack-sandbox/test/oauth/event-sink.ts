import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface EventSink {
  url: string;
  /** The bodies received, oldest first: Events API JSON, interaction payloads, slash commands' fields. */
  events: Array<Record<string, unknown>>;
  clear(): void;
  close(): Promise<void>;
}

/** A Request URL that takes whatever Slack sends and answers 200: where a test reads the events. */
export async function startEventSink(): Promise<EventSink> {
  const events: Array<Record<string, unknown>> = [];
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
    });
    req.on('end', () => {
      if ((req.headers['content-type'] ?? '').includes('json'))
        events.push(JSON.parse(text) as Record<string, unknown>);
      else {
        // Interactions come form-encoded: a `payload` of JSON, or a slash command's fields.
        const form = Object.fromEntries(new URLSearchParams(text));
        events.push(
          typeof form.payload === 'string' ? (JSON.parse(form.payload) as Record<string, unknown>) : form,
        );
      }
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/slack/events`,
    events,
    clear: () => {
      events.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
