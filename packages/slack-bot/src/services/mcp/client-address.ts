import type { IncomingMessage } from 'node:http';
import proxyaddr from 'proxy-addr';

/** Whether the hop at `address` (the `hop`th from the bot) is a proxy whose X-Forwarded-For is believed. */
export type ProxyTrust = (address: string, hop: number) => boolean;

/**
 * MCP_TRUSTED_PROXIES compiled: each entry a CIDR range, an address, or one of proxy-addr's names
 * (`loopback`, `linklocal`, `uniquelocal`). None trusts no one: the client is the TCP peer.
 */
export const proxyTrust = (entries: readonly string[]): ProxyTrust => proxyaddr.compile([...entries]);

/** What is wrong with one MCP_TRUSTED_PROXIES entry, or undefined when it is a range proxy-addr takes. */
export function trustedProxyProblem(entry: string): string | undefined {
  try {
    proxyaddr.compile(entry);
    return undefined;
  } catch {
    return `"${entry}" is not an address range: each entry is an IP address, a CIDR like 10.0.0.0/8, or loopback, linklocal or uniquelocal`;
  }
}

/**
 * The client's address: the TCP peer, unless that peer is a trusted proxy; then the rightmost
 * X-Forwarded-For hop that isn't trusted (the hops left of it were written by whoever sent the request,
 * so they are anyone's to make up).
 */
export const clientAddress = (req: IncomingMessage, trust: ProxyTrust): string => proxyaddr(req, trust) ?? '';
