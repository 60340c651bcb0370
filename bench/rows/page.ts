/**
 * h. The page of plants serve (issue 29): its size, and serve's throughput under wrk with and
 * without a browser tab streaming the live request log.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Browser } from 'playwright-core';
import { browserTestsEnabled, CHROMIUM, launchChromium } from '../../test/helpers/browser.js';
import { bench, clientCpu, plan, root, serverCpu, token, work } from '../lib/context.js';
import { format, median, noteRow, progress, type Row, type RowGroup, verdict } from '../lib/format.js';
import { cpuSeconds, run } from '../lib/processes.js';
import { type Server, startPlantsServe } from '../lib/servers.js';
import { hasCommand } from '../lib/system.js';

const ASSETS = ['index.html', 'page.js', 'page.css'];
/** TCP's initial window, 10 segments of 1460 bytes (RFC 6928): what arrives in the first round trip. */
const INITIAL_WINDOW_BYTES = 14_600;
const WRK_CONNECTIONS = 16;

function sizeRow(): Row {
  const files = ASSETS.map((name) => readFileSync(path.join(root, 'dist', 'server', 'page', 'assets', name)));
  const raw = files.reduce((sum, file) => sum + file.length, 0);
  const gzipped = files.reduce((sum, file) => sum + gzipSync(file, { level: 9 }).length, 0);
  return {
    id: 'i1',
    what: 'the page: HTML + script + style, as served gzipped (as they are)',
    median: `${gzipped.toLocaleString('en-US')} B (${raw.toLocaleString('en-US')} B)`,
    spread: '',
    ratio: '',
    goal: `gzipped ≤ ${INITIAL_WINDOW_BYTES.toLocaleString('en-US')} B (one initial TCP window)`,
    result: verdict(gzipped <= INITIAL_WINDOW_BYTES),
  };
}

/**
 * wrk posting new plants for plan.serverSeconds: requests per second, every one answered 200,
 * and the server's CPU time per request (less swayed by a busy machine).
 */
async function wrkPosts(server: Server, firstId: number): Promise<{ rps: number; cpuUs: number | undefined }> {
  const before = cpuSeconds(server.child.pid);
  const result = await run(
    'wrk',
    [
      '-t1',
      `-c${WRK_CONNECTIONS}`,
      `-d${plan.serverSeconds}s`,
      '--timeout',
      '30s',
      '-s',
      path.join(bench, 'wrk-post-plants.lua'),
      server.url,
      '--',
      token,
      String(firstId),
    ],
    { timeoutMs: (plan.serverSeconds + 60) * 1000, cpu: clientCpu },
  );
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(result.stdout)?.[1]);
  const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(result.stdout)?.[1];
  if (result.code !== 0 || !Number.isFinite(rps) || non2xx !== undefined || /Socket errors/.test(result.stdout)) {
    throw new Error(
      `wrk failed (exit ${result.code ?? result.signal}):\n${result.stdout}${result.stderr}`.slice(-2000),
    );
  }
  const after = cpuSeconds(server.child.pid);
  const requests = Number(/(\d+) requests in/.exec(result.stdout)?.[1]);
  const cpuUs =
    before === undefined || after === undefined || !(requests > 0) ? undefined : ((after - before) / requests) * 1e6;
  return { rps, cpuUs };
}

/** A tab of the page with the token entered, once its live log is streaming. */
async function openTab(browser: Browser, server: Server) {
  const page = await browser.newPage();
  await page.goto(`${server.url}/_serve/`);
  await page.locator('#token').fill(token);
  await page.keyboard.press('Enter');
  await page.locator('#log-status', { hasText: 'Live.' }).waitFor({ timeout: 30_000 });
  return page;
}

async function pageRows(): Promise<Row[]> {
  const rows = [sizeRow()];
  if (!hasCommand('wrk')) {
    rows.push(noteRow('i2', 'serve under wrk, no page open', 'skipped: wrk is not installed (apt-get install wrk)'));
    return rows;
  }
  if (!browserTestsEnabled()) {
    rows.push(noteRow('i2', 'serve under wrk, with and without the page', 'skipped: no /usr/bin/chromium'));
    return rows;
  }
  const without: number[] = [];
  const withTab: number[] = [];
  const ratios: number[] = [];
  const cpuWithout: number[] = [];
  const cpuWithTab: number[] = [];
  const cpu = (values: number[]) => (values.length === 0 ? '' : `${median(values).toFixed(1)} µs`);
  // The tab is a client: on the load generator's core, never the server's.
  let executablePath: string | undefined;
  if (clientCpu !== undefined) {
    executablePath = path.join(work, 'chromium-pinned');
    writeFileSync(executablePath, `#!/bin/sh\nexec taskset -c ${clientCpu} ${CHROMIUM} "$@"\n`, { mode: 0o755 });
  }
  const browser = await launchChromium({ executablePath });
  try {
    for (let round = 0; round < plan.serverRuns; round++) {
      for (const tab of [false, true]) {
        progress(
          `page round ${round + 1}/${plan.serverRuns}: serve --memory under wrk, ${tab ? 'a tab streaming the log' : 'no tab'}`,
        );
        const server = await startPlantsServe('memory', 'normal', serverCpu);
        const page = tab ? await openTab(browser, server) : undefined;
        try {
          const { rps, cpuUs } = await wrkPosts(server, 1);
          (tab ? withTab : without).push(rps);
          if (cpuUs !== undefined) (tab ? cpuWithTab : cpuWithout).push(cpuUs);
          if (page !== undefined) {
            // The tab did stream: its log shows the load's requests.
            const rowsShown = await page.locator('#log tr').count();
            if (rowsShown === 0) throw new Error('the tab showed no request of the load');
          }
        } finally {
          await page?.close();
          await server.stop();
        }
      }
      ratios.push((withTab.at(-1) ?? 0) / (without.at(-1) ?? 1));
    }
  } finally {
    await browser.close();
  }
  const ratio = median(ratios);
  const spread = (values: number[]) => format.spread(values, (value) => Math.round(value).toLocaleString('en-US'));
  rows.push(
    {
      id: 'i2',
      what: `serve --memory, wrk -c${WRK_CONNECTIONS} POST /plants, no page open`,
      median: format.rate(median(without), 'req/s'),
      spread: spread(without),
      ratio: '',
      goal: '',
      result: '',
      cpu: cpu(cpuWithout),
    },
    {
      id: 'i3',
      what: 'i2 with a chromium tab streaming the live log (on the load generator’s core)',
      median: format.rate(median(withTab), 'req/s'),
      spread: spread(withTab),
      ratio: `${format.ratio(ratio)} of i2`,
      goal: '≥ 0.95 of i2 (no loss beyond the noise)',
      result: verdict(ratio >= 0.95),
      cpu: cpu(cpuWithTab),
    },
  );
  return rows;
}

export const page: RowGroup = { key: 'i', title: 'the page of plants serve', rows: pageRows };
