/**
 * The ack probe's sender, a process of its own (forked by waits.ts): the bench process runs the sandbox
 * and a thousand MCP hosts, and its own event-loop stalls would be timed as the bot's slowness. The bench
 * builds each slash command (the sandbox's driver issues its trigger and response URL) and hands the body
 * over IPC; this process signs it as Slack signs it, POSTs it to the bot's Request URL and times it, from
 * sending to the bot's answer, on an event loop that does nothing else.
 */
import { createHmac } from 'node:crypto';

interface Ask {
  id: number;
  body: string;
  contentType: string;
}

const EVENTS_URL = process.env.ACK_SENDER_URL ?? '';
const SECRET = process.env.ACK_SENDER_SECRET ?? '';

async function send({ id, body, contentType }: Ask) {
  const timestamp = Math.floor(Date.now() / 1000);
  const signature = `v0=${createHmac('sha256', SECRET).update(`v0:${timestamp}:${body}`).digest('hex')}`;
  const started = performance.now();
  try {
    const response = await fetch(EVENTS_URL, {
      method: 'POST',
      headers: {
        'content-type': contentType,
        'x-slack-request-timestamp': String(timestamp),
        'x-slack-signature': signature,
        'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
      },
      body,
    });
    const text = await response.text();
    return { id, status: response.status, text, ms: performance.now() - started };
  } catch (error) {
    // A connection reset: an ack not given (status 0), as Slack would count it.
    return { id, status: 0, text: String(error), ms: performance.now() - started };
  }
}

process.on('message', (ask: Ask) => {
  void send(ask).then((answer) => process.send?.(answer));
});
process.on('disconnect', () => process.exit(0));
