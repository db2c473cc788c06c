/** The page's JSON actions (`/sandbox/*`), one shape for every route file: `{ok: true, result}` or the problem. */
import type { Context } from 'hono';
import type { SlackDriver } from '../driver.js';

export type Body = Record<string, unknown>;

export class NoBot extends Error {
  constructor() {
    super('no bot is connected to this sandbox');
  }
}

/** A JSON route: `{ok: true, result}`, or what went wrong (400; 503 while no bot is connected). */
export const jsonRoute = (run: (body: Body) => Promise<unknown> | unknown) => async (c: Context) => {
  let body: Body;
  try {
    body = (await c.req.json()) as Body;
  } catch {
    return c.json({ ok: false, error: 'invalid_json' }, 400);
  }
  try {
    return c.json({ ok: true, result: (await run(body)) ?? null });
  } catch (error) {
    return c.json({ ok: false, error: (error as Error).message }, error instanceof NoBot ? 503 : 400);
  }
};

/** The connected bot's driver, or NoBot (503). */
export function connectedDriver(driver: () => SlackDriver | undefined): SlackDriver {
  const connected = driver();
  if (!connected) throw new NoBot();
  return connected;
}
