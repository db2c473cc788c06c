/**
 * Reading what the service sends, field by field (docs/contract-decisions.md: "fields present only when…").
 *
 * The shape of every object read here:
 * - the fields we know are normalized at the top level (`null` means absent; numeric strings are
 *   numbers; timestamps are ISO strings; `content` is text);
 * - fields we don't know are kept at the top level as sent;
 * - `raw` is the object exactly as the service sent it, so an odd value is never lost: the original of
 *   a normalized field is `x.raw.<field>` (a service field that is itself called `raw` is in `x.raw.raw`).
 *
 * Only `sessionId` and `status` of a session and a message's `roundId` are strict: without them a read
 * can't be used, so it fails (InvalidResponseError) rather than guess. Everything else is tolerated.
 * Responses to POSTs are never failed at all: the service acted, so the caller gets what it sent.
 * Pure: no timers, no I/O (the n8n node bundles these files).
 */

export {
  type Message,
  type MessagesPage,
  type MessagesPagination,
  readMessagesPage,
} from './messages-page.js';
export {
  type CreateSessionResponse,
  type HumanInputAck,
  readCreateSessionResponse,
  readHumanInputAck,
  readSignalResponse,
  type SignalResponse,
} from './post-results.js';
export type { ReadIssue, ReadResult } from './read-fields.js';
export { type Cost, type Round, readSessionStatus, type SessionStatus } from './session-status.js';
