/**
 * `EMULATOR_QUIRKS`: behaviours the spec allows but our default reading doesn't send. Each one is off by
 * default, so every test of every package keeps running against the plain emulator; CI runs the
 * cross-package suites a second time with `all` to prove the clients read the spec, not this emulator.
 */

export type AfterReading = 'round-created' | 'message-position';

export interface Quirks {
  /** Subagent rounds open while a round runs; their messages interleave with the main round's. */
  concurrentRounds: boolean;
  /** Which of the spec's two readings of `after` the messages listing uses. */
  after: AfterReading;
  /** `null` for every absent optional field. */
  nulls: boolean;
  /** `{_seconds, _nanoseconds}` timestamps (when EMULATOR_TIMESTAMPS is left at `iso`). */
  firestoreTimestamps: boolean;
  /** A status outside the spec's list (`thinking`) for the first seconds of every run. */
  unknownStatus: boolean;
  /** Terminal statuses `complete` / `failed` (when EMULATOR_TERMINAL_SPELLING is left at `status`). */
  completeSpelling: boolean;
  /** Internal entries are paged, then filtered out: short or empty pages with `hasMore: true`. */
  hiddenEntries: boolean;
  /** Unknown fields on every object. */
  extraFields: boolean;
  /** `content: null` on assistant messages that carry `toolCalls`. */
  toolCallContentNull: boolean;
}

const FLAGS = {
  'concurrent-rounds': 'concurrentRounds',
  nulls: 'nulls',
  'firestore-timestamps': 'firestoreTimestamps',
  'unknown-status': 'unknownStatus',
  'complete-spelling': 'completeSpelling',
  'hidden-entries': 'hiddenEntries',
  'extra-fields': 'extraFields',
  'tool-call-content-null': 'toolCallContentNull',
} as const satisfies Record<string, Exclude<keyof Quirks, 'after'>>;

const AFTER_NAMES: Record<string, AfterReading> = {
  'after=round-created': 'round-created',
  'after=message-position': 'message-position',
};

/** Every name `EMULATOR_QUIRKS` accepts, `all` first. */
export const QUIRK_NAMES: readonly string[] = ['all', ...Object.keys(FLAGS), ...Object.keys(AFTER_NAMES)];

export class QuirksError extends Error {}

export function noQuirks(): Quirks {
  return {
    concurrentRounds: false,
    after: 'round-created',
    nulls: false,
    firestoreTimestamps: false,
    unknownStatus: false,
    completeSpelling: false,
    hiddenEntries: false,
    extraFields: false,
    toolCallContentNull: false,
  };
}

/**
 * `all`, or a comma list of names. `all` reads `after` by message position (the stranger reading once
 * rounds interleave); `all,after=round-created` keeps every other quirk with the other reading.
 */
export function parseQuirks(raw: string | undefined, source = 'EMULATOR_QUIRKS'): Quirks {
  const quirks = noQuirks();
  const names = (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  let after: AfterReading | undefined;
  for (const name of names) {
    if (name === 'all') {
      for (const key of Object.values(FLAGS)) quirks[key] = true;
      continue;
    }
    if (name in FLAGS) {
      quirks[FLAGS[name as keyof typeof FLAGS]] = true;
      continue;
    }
    const reading = AFTER_NAMES[name];
    if (reading === undefined) {
      throw new QuirksError(
        `${source}: unknown quirk "${name}"; valid quirks: ${QUIRK_NAMES.join(', ')} (comma-separated)`,
      );
    }
    if (after !== undefined && after !== reading) {
      throw new QuirksError(`${source}: after=${after} and after=${reading} can't both be on`);
    }
    after = reading;
  }
  quirks.after = after ?? (names.includes('all') ? 'message-position' : 'round-created');
  return quirks;
}

/** The names that are on, as `parseQuirks` would accept them back. */
export function quirkNames(quirks: Quirks): string[] {
  const on = Object.entries(FLAGS)
    .filter(([, key]) => quirks[key])
    .map(([name]) => name);
  return [...on, `after=${quirks.after}`];
}
