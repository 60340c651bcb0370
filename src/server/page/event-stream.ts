import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestJournal } from './request-journal.js';

/** Events are gathered and written this often, not one write per request: a load test stays a load test. */
const FLUSH_MS = 250;
/** The newest (the page shows the last 100); the rest are counted in a `gap` event. */
const MAX_EVENTS_PER_FLUSH = 100;
/** Load: more requests in a flush's time than a flush sends. */
const LOAD_PER_MS = MAX_EVENTS_PER_FLUSH / FLUSH_MS;
/** Under load the tab draws a sample every 4 s, and its browser keeps off the cores that serve and its clients use. */
const BUSY_FLUSH_MS = 4000;
const MAX_EVENTS_PER_BUSY_FLUSH = 10;
/** Keeps proxies and the browser from timing out an idle stream. */
const HEARTBEAT_MS = 15_000;
/** Bytes not yet taken by its socket: a reader further behind misses events, told by a `gap`. */
const MAX_BACKLOG_BYTES = 1024 * 1024;

/**
 * The page reads it with fetch: EventSource cannot send the bearer token, and the token never goes in a URL. A
 * flush with a `gap` also carries `event: rates`, so that under load the tab draws the log and the chart in one frame.
 */
export type EventStreams = ReturnType<typeof createEventStreams>;

export function createEventStreams(journal: RequestJournal, rates?: () => string) {
  const open = new Set<ServerResponse>();
  return {
    open(req: IncomingMessage, res: ServerResponse, after: number): void {
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        'x-accel-buffering': 'no',
      });
      open.add(res);
      // A request costs a stream nothing but the check that a flush is due.
      let pending = `retry: 2000\n\n${journal.since(after).map(requestEvent).join('')}`;
      let sent = journal.stats().lastSeq;
      let missed = 0;
      let busy = false;
      let timer: NodeJS.Timeout | undefined;
      const flush = () => {
        timer = undefined;
        if (res.destroyed) return;
        const { lastSeq } = journal.stats();
        // Judged on what came since the last flush, so that the first flush of a load sends a sample already.
        busy = lastSeq - sent > LOAD_PER_MS * (busy ? BUSY_FLUSH_MS : FLUSH_MS);
        const { texts, skipped } = journal.tail(sent, busy ? MAX_EVENTS_PER_BUSY_FLUSH : MAX_EVENTS_PER_FLUSH);
        sent = lastSeq;
        missed += skipped;
        if (res.writableLength > MAX_BACKLOG_BYTES) {
          missed += texts.length;
          pending = '';
          return;
        }
        const gap = missed > 0;
        if (gap) pending += `event: gap\ndata: {"missed":${missed}}\n\n`;
        missed = 0;
        for (const json of texts) pending += requestEvent(json);
        if (gap && rates !== undefined) pending += `event: rates\ndata: ${rates()}\n\n`;
        if (pending !== '') res.write(pending);
        pending = '';
      };
      const unsubscribe = journal.subscribe(() => {
        timer ??= setTimeout(flush, busy ? BUSY_FLUSH_MS : FLUSH_MS);
      });
      const heartbeat = setInterval(() => {
        if (!res.destroyed) res.write(': keep-alive\n\n');
      }, HEARTBEAT_MS);
      heartbeat.unref();
      flush();
      res.once('close', () => {
        open.delete(res);
        unsubscribe();
        clearInterval(heartbeat);
        if (timer !== undefined) clearTimeout(timer);
      });
      req.socket.setNoDelay(true);
    },
    closeAll() {
      for (const res of open) res.end();
    },
    get size() {
      return open.size;
    },
  };
}

/** Its id is the seq its JSON text starts with (`{"seq":N,`). */
function requestEvent(json: string): string {
  return `id: ${json.slice(7, json.indexOf(',', 7))}\nevent: request\ndata: ${json}\n\n`;
}
