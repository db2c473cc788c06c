import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** A TCP socket in LISTEN state, as the kernel reports it. */
export interface ListeningSocket {
  pid: number;
  address: string;
  port: number;
}

/** `pid` and every process under it, read from /proc (Linux). */
function withDescendants(pid: number): number[] {
  const parents = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name may hold spaces and parentheses: the fields after its last ')' are fixed.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)]);
    } catch {
      // Gone since readdir.
    }
  }
  const all = [pid];
  for (let i = 0; i < all.length; i += 1) all.push(...(parents.get(all[i] as number) ?? []));
  return all;
}

/** The kernel writes addresses as hex of 32-bit words in host (little-endian) order. */
function decodeAddress(hex: string): string {
  const words = hex.match(/.{8}/g) ?? [];
  const bytes = words.flatMap((word) =>
    (word.match(/../g) ?? []).reverse().map((b) => Number.parseInt(b, 16)),
  );
  if (bytes.length === 4) return bytes.join('.');
  if (bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff)
    return `::ffff:${bytes.slice(12).join('.')}`;
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0)).toString(16));
  return groups.join(':').replace(/(^|:)0(:0)+(:|$)/, '::');
}

/**
 * Every listening TCP socket that `pid` or a process under it holds: its socket inodes (/proc/<pid>/fd)
 * matched against /proc/<pid>/net/tcp and tcp6 (state 0A is LISTEN).
 */
export function listeningSockets(pid: number): ListeningSocket[] {
  const found: ListeningSocket[] = [];
  for (const each of withDescendants(pid)) {
    const inodes = new Set<string>();
    for (const fd of readdirSync(`/proc/${each}/fd`)) {
      try {
        const target = readlinkSync(`/proc/${each}/fd/${fd}`);
        const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
        if (inode) inodes.add(inode);
      } catch {
        // Closed since readdir.
      }
    }
    for (const table of ['tcp', 'tcp6']) {
      const lines = readFileSync(`/proc/${each}/net/${table}`, 'utf8').trim().split('\n').slice(1);
      for (const line of lines) {
        const fields = line.trim().split(/\s+/);
        const [local, state, inode] = [fields[1] ?? '', fields[3], fields[9] ?? ''];
        if (state !== '0A' || !inodes.has(inode)) continue;
        const [address = '', port = '0'] = local.split(':');
        found.push({ pid: each, address: decodeAddress(address), port: Number.parseInt(port, 16) });
      }
    }
  }
  return found;
}

export const isLoopback = (address: string) =>
  address === '::1' || /^127\./.test(address) || /^::ffff:127\./.test(address);
