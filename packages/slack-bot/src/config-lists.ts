/** A comma-separated setting's entries, each trimmed, empty ones dropped (`a, b,,c` → a, b, c). */
export function commaSeparated(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}
