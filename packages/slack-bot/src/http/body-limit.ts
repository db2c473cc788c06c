import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';

/** Slack's requests are a few kilobytes; 1 MB leaves room and bounds what one request can make us hold. */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/** Answers 413 and closes the connection: the rest of the body is not worth reading. */
export function refuseTooLarge(res: ServerResponse, limit: number): void {
  res.writeHead(413, { 'content-type': 'application/json', connection: 'close' });
  res.end(JSON.stringify({ ok: false, error: `the request body is larger than ${limit} bytes` }));
}

/**
 * In front of a request listener: a body announced (Content-Length) over the limit is answered 413
 * before a byte of it is read. A chunked body is cut off as it passes the limit by whoever reads it —
 * Bolt's receiver (given the same `bodyLimit`) for /slack/events; the custom routes read no body.
 */
export function refuseLargeBodies(listener: RequestListener, limit = BODY_LIMIT_BYTES): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (Number.isFinite(declared) && declared > limit) return refuseTooLarge(res, limit);
    res.once('finish', () => {
      // Answered before the body arrived whole (Bolt's 413 past the limit): the reader paused the body
      // mid-way, so the connection could neither be reused nor closed as idle. End it; what the client
      // still sends is read and dropped, never kept.
      if (!req.complete) {
        req.socket.end();
        req.resume();
      }
    });
    return listener(req, res);
  };
}
