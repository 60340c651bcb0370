import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/** Debian's chromium (`apt-get install chromium`; .ci/run installs it). */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * Whether the browser tests run. In CI (CI=true) they never skip: a missing chromium is a
 * failure there. Elsewhere they skip with one loud line.
 */
export function browserTestsEnabled(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env.CI === 'true') {
    throw new Error(
      `${CHROMIUM} not found, and CI=true: the browser tests never skip in CI (apt-get install chromium)`,
    );
  }
  console.warn(`!!! browser tests SKIPPED: no ${CHROMIUM} (apt-get install chromium) !!!`);
  return false;
}

/**
 * Chromium kept off the network: no sandbox (the tests run as root), and none of the background
 * requests (updates, sync, component downloads) a first run makes. The bench starts its own with these.
 */
export const CHROMIUM_ARGS: readonly string[] = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-dev-shm-usage',
];

/** Headless chromium with CHROMIUM_ARGS, driven by playwright. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: [...CHROMIUM_ARGS] });
}
