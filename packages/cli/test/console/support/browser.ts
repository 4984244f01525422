import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`); playwright-core drives it, no browser download. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Whether the browser tests can run here; under CI they must (a missing Chromium fails them instead). */
export const hasChromium = existsSync(CHROMIUM);

/** Launches headless Chromium. @throws when it is missing (only reached under CI, see {@link hasChromium}). */
export async function launchChromium(): Promise<Browser> {
  if (!hasChromium)
    throw new Error(
      `CI is set but ${CHROMIUM} is missing: the console's browser tests are required in CI (apt-get install -y chromium).`,
    );
  return chromium.launch({ executablePath: CHROMIUM, headless: true });
}
