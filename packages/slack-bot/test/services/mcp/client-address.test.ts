import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { clientAddress, proxyTrust, trustedProxyProblem } from '../../../src/services/mcp/index.js';

const request = (peer: string, forwardedFor?: string) =>
  ({
    socket: { remoteAddress: peer },
    connection: { remoteAddress: peer },
    headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
  }) as unknown as IncomingMessage;

describe('the client address for the failed-token budget', () => {
  it('trusting no proxy (the default), X-Forwarded-For is ignored: the TCP peer is the client', () => {
    expect(clientAddress(request('10.1.2.3', '203.0.113.7'), proxyTrust([]))).toBe('10.1.2.3');
  });

  it('from a trusted proxy, the rightmost hop that is not trusted; what the client wrote left of it is not', () => {
    const trust = proxyTrust(['uniquelocal']);
    // The client claimed 1.1.1.1; the Ingress (10.x) appended the address it saw.
    expect(clientAddress(request('10.1.2.3', '1.1.1.1, 203.0.113.7'), trust)).toBe('203.0.113.7');
    expect(clientAddress(request('10.1.2.3', '1.1.1.1, 203.0.113.7, 10.9.9.9'), trust)).toBe('203.0.113.7');
    expect(clientAddress(request('10.1.2.3'), trust)).toBe('10.1.2.3');
  });

  it('a peer outside the trusted ranges is the client, whatever it forwards', () => {
    const trust = proxyTrust(['10.0.0.0/8']);
    expect(clientAddress(request('198.51.100.4', '203.0.113.7'), trust)).toBe('198.51.100.4');
  });

  it('an entry that is no address range is named with the rule', () => {
    expect(trustedProxyProblem('10.0.0.0/8')).toBeUndefined();
    expect(trustedProxyProblem('loopback')).toBeUndefined();
    expect(trustedProxyProblem('ingress')).toMatch(/"ingress" is not an address range: each entry is/);
  });
});
