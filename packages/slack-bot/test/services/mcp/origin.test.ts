import { describe, expect, it } from 'vitest';
import { originAllowed } from '../../../src/services/mcp/index.js';

describe('Origin against DNS rebinding', () => {
  const allowed = ['https://app.example.com', 'http://localhost:6274'];

  it('a host that is not a browser sends none: it passes', () => {
    expect(originAllowed(undefined, [])).toBe(true);
  });

  it('a listed origin passes, written any way a browser may send it', () => {
    expect(originAllowed('https://app.example.com', allowed)).toBe(true);
    expect(originAllowed('HTTPS://APP.EXAMPLE.COM:443', allowed)).toBe(true);
    expect(originAllowed('http://localhost:6274', allowed)).toBe(true);
  });

  it('any other origin is refused: another host, scheme or port, "null", or no origin at all', () => {
    for (const origin of [
      'https://evil.example',
      'http://app.example.com',
      'https://app.example.com.evil.example',
      'http://localhost:6275',
      'null',
      'not a url',
      '',
    ])
      expect(originAllowed(origin, allowed), origin).toBe(false);
  });
});
