import { readFile } from 'node:fs/promises';
import type { Hono } from 'hono';

/**
 * Google's Noto Color Emoji as Fontsource packages it, read from the installed package where it is (never
 * copied into the repository). The whole-font file, not Fontsource's unicode-range subsets: the subsets
 * carry only SVG glyphs, which Chromium does not draw (each emoji comes out blank); this one carries
 * COLRv1 glyphs as well, drawn by Chromium, Firefox and Safari alike.
 */
const EMOJI_FONT = new URL(
  import.meta.resolve('@fontsource/noto-color-emoji/files/noto-color-emoji-emoji-400-normal.woff2'),
);
/** Where the page's `@font-face` (web/style.css) finds it. */
export const EMOJI_FONT_PATH = '/fonts/noto-color-emoji.woff2';

/**
 * The emoji font the page falls back to, so emoji show in colour where the system has none. The browser
 * fetches it only when a character on the page needs it; it changes only with the package's pinned
 * version, so a day's cache spares each reload its megabytes.
 */
export function addEmojiFontRoutes(app: Hono): void {
  app.get(EMOJI_FONT_PATH, async () => {
    return new Response(await readFile(EMOJI_FONT), {
      headers: { 'content-type': 'font/woff2', 'cache-control': 'public, max-age=86400' },
    });
  });
}
