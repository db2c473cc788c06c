import { existsSync, mkdirSync } from 'node:fs';
import { type SpawnedEmulator, spawnEmulator } from '@agent-sessions/emulator/testing';
import { loadConfig, openStore, type RunningBot, startBot } from '@agent-sessions/slack-bot';
import { type RunningSandbox, type SandboxOptions, startSandbox } from '@agent-sessions/slack-sandbox';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { patient } from '../support/patience.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium-headless-shell';
const ARTIFACTS = new URL('../../test-results/browser/', import.meta.url).pathname;

/** Fails before anything is started when Debian's headless Chromium is missing; makes the screenshots' folder. */
export function requireChromium(): void {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: apt-get install chromium-headless-shell`);
  mkdirSync(ARTIFACTS, { recursive: true });
}

/** Headless Chromium with one page, 1280×900, open at `url`. */
export async function openPage(url: string): Promise<{ browser: Browser; page: Page }> {
  const browser = await chromium.launch({ executablePath: CHROMIUM });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(url);
    return { browser, page };
  } catch (error) {
    await browser.close();
    throw error;
  }
}

export const screenshot = (page: Page, name: string) => page.screenshot({ path: `${ARTIFACTS}${name}.png` });

// The page-side callbacks below reach the DOM through the element they are given (its ownerDocument and
// window): the tests are type-checked without the DOM's global names.

/** Where the first `character` of `locator`'s text is drawn, as the box of its glyph on the page. */
export async function glyphBox(locator: Locator, character: string) {
  return locator.evaluate((element, wanted) => {
    const page = element.ownerDocument;
    const SHOW_TEXT = 4;
    const walker = page.createTreeWalker(element, SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const at: number = node.textContent?.indexOf(wanted) ?? -1;
      if (at < 0) continue;
      const range = page.createRange();
      range.setStart(node, at);
      range.setEnd(node, at + wanted.length);
      const { x, y, width, height } = range.getBoundingClientRect();
      return { x: x as number, y: y as number, width: width as number, height: height as number };
    }
    throw new Error(`${wanted} is not in the element's text`);
  }, character);
}

/** The page's loaded and loading web fonts, as `family status` (`Noto Color Emoji loaded`). */
export async function webFonts(page: Page): Promise<string[]> {
  return page.locator('body').evaluate(async (body) => {
    const fonts = body.ownerDocument.fonts;
    await fonts.ready;
    return [...fonts].map((face) => `${String(face.family).replaceAll('"', '')} ${face.status}`);
  });
}

/**
 * The share of a screenshot's pixels that are coloured (their channels at least `spread` apart), not black,
 * white or grey: a colour emoji has many, text and the empty box drawn for a missing glyph have none. The
 * PNG is decoded by the page's own browser.
 */
export function colouredShare(page: Page, png: Buffer, spread = 80): Promise<number> {
  return page.locator('body').evaluate(
    async (body, { base64, spread }) => {
      const window = body.ownerDocument.defaultView;
      const blob = await (await window.fetch(`data:image/png;base64,${base64}`)).blob();
      const image = await window.createImageBitmap(blob);
      const canvas = new window.OffscreenCanvas(image.width, image.height);
      const context = canvas.getContext('2d');
      context.drawImage(image, 0, 0);
      const data: Uint8ClampedArray = context.getImageData(0, 0, image.width, image.height).data;
      let coloured = 0;
      for (let i = 0; i < data.length; i += 4) {
        const [r = 0, g = 0, b = 0] = [data[i], data[i + 1], data[i + 2]];
        if (Math.max(r, g, b) - Math.min(r, g, b) >= spread) coloured++;
      }
      return coloured / (data.length / 4);
    },
    { base64: png.toString('base64'), spread },
  );
}

export async function actAs(page: Page, userId: string) {
  await page.getByTestId('user-switcher').selectOption(userId);
}

/** Types `text` in the composer and sends it. */
export async function write(page: Page, text: string) {
  await page.getByTestId('composer').fill(text);
  await page.getByTestId('composer').press('Enter');
}

/**
 * The emulator process, the sandbox server (its page showing the emulator) and the real bot, in process,
 * connected to the sandbox.
 */
export async function startBotWithSandbox(options: {
  apiKey: string;
  emulatorSpeed: number;
  /** The sandbox's own options (e.g. `rateLimits: false`). */
  sandbox?: Omit<SandboxOptions, 'emulatorUrl' | 'triggerTtlMs'>;
  /** More of the bot's environment. */
  env?: Record<string, string>;
  needsPersonMs: number;
}): Promise<{ emulator: SpawnedEmulator; sandbox: RunningSandbox; bot: RunningBot }> {
  const emulator = await spawnEmulator({ apiKeys: [options.apiKey], speed: options.emulatorSpeed });
  let sandbox: RunningSandbox | undefined;
  // Whatever started is closed again when a later step fails: the suite's afterAll never saw it.
  try {
    sandbox = await startSandbox({
      ...options.sandbox,
      emulatorUrl: emulator.url,
      triggerTtlMs: 10_000,
      waitTimeoutMs: patient(10_000),
    });
    const config = loadConfig({
      SLACK_BOT_TOKEN: sandbox.botToken,
      SLACK_SIGNING_SECRET: sandbox.signingSecret,
      SLACK_API_URL: sandbox.apiUrl,
      AGENT_SERVICE_URL: emulator.url,
      AGENT_API_KEY: options.apiKey,
      PORT: '0',
      HOST: '127.0.0.1',
      ...options.env,
    });
    if (!config.slack || !config.service) throw new Error('configured above');
    const bot = await startBot(
      { ...config, slack: config.slack, service: config.service },
      {
        store: await openStore({}),
        logLevel: 'warn',
        // A poll that failed (a request timed out on a busy machine) is tried again within seconds, not after
        // production's minutes of backoff: what the page shows next waits on it, and backoff is not tested here.
        schedule: {
          activeMinMs: 200,
          activeMaxMs: 800,
          needsPersonMs: options.needsPersonMs,
          errorBaseMs: 200,
          errorMaxMs: 2_000,
        },
        cards: { minIntervalMs: 200, maxPerMinute: 3_000 },
      },
    );
    sandbox.connectBot(bot.eventsUrl as string);
    return { emulator, sandbox, bot };
  } catch (error) {
    await sandbox?.close();
    await emulator.close();
    throw error;
  }
}

/** What a browser suite drives: the processes of `startBotWithSandbox` and Chromium open at the page. */
export interface BotInPage {
  emulator: SpawnedEmulator;
  sandbox: RunningSandbox;
  bot: RunningBot;
  browser: Browser;
  page: Page;
}

/**
 * The suite's set-up, registered as its beforeAll/afterAll: the emulator, the sandbox and the bot started,
 * Chromium open at the sandbox's page; all closed after the suite. The fields are set once beforeAll ran.
 */
export function botInPage(
  options: Parameters<typeof startBotWithSandbox>[0] & {
    /** Playwright's wait for every action on the page, when the default is too short. */
    pageTimeoutMs?: number;
  },
): BotInPage {
  const { pageTimeoutMs, ...start } = options;
  const live = {} as Partial<BotInPage>;
  beforeAll(async () => {
    requireChromium();
    Object.assign(live, await startBotWithSandbox(start));
    const { browser, page } = await openPage((live.sandbox as RunningSandbox).url);
    Object.assign(live, { browser, page });
    if (pageTimeoutMs !== undefined) page.setDefaultTimeout(pageTimeoutMs);
  }, patient(90_000));
  afterAll(async () => {
    await live.browser?.close();
    await live.bot?.stop();
    await live.bot?.store.close();
    await live.sandbox?.close();
    await live.emulator?.close();
  });
  return live as BotInPage;
}
