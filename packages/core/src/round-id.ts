/** A round object's id (`roundId`, else `id`), when it has a non-empty one. */
export function roundIdOf(round: unknown): string | undefined {
  if (round && typeof round === 'object') {
    const r = round as Record<string, unknown>;
    const id = r.roundId ?? r.id;
    if (typeof id === 'string' && id !== '') return id;
  }
  return undefined;
}
