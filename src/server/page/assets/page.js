// The page of plants serve (docs/serve-page.md). Plain script, no build step, no other origin.
// Every stored string goes into the page as text (textContent), never as markup. Plant ids are
// int64: a JavaScript number cannot hold them, so they stay strings from the wire to the screen.

const PAGE_SIZE = 20;
const LOG_ROWS = 100;
const TOKEN_KEY = 'plants.serve.token';
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const ID_MESSAGE = `must be a whole number from ${INT64_MIN} to ${INT64_MAX}, written as JSON writes it (digits and a leading - if negative; no spaces, no +, no leading zeros)`;
const MAX_TEXT = 1024;
const FAULT_KINDS = ['503', 'reset', 'stall', 'truncate'];

const $ = (id) => document.getElementById(id);
let token = '';
let pageStarts = [undefined];
let nextAfter;
let filterId;
let lastSeq = 0;
let reloadTimer;
let lastPlantsLoad = 0;
let shownPlants;
let streamAbort;
let logQueue = [];
let logDrawn = true;
/** When the server last said it left requests out of the stream: it is under load. */
let lastGap = 0;
let shownRates;

/** JSON with every `"id": <number>` read as the string of its digits (a key, never inside a string, can match). */
function parseExact(text) {
  return JSON.parse(text.replace(/"id":\s*(-?\d+)/g, '"id":"$1"'));
}

async function api(method, path, body) {
  const headers = { authorization: `Bearer ${token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(path, { method, headers, body, cache: 'no-store', credentials: 'omit' });
  const text = await response.text();
  let json;
  try {
    json = text === '' ? undefined : parseExact(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, json, text };
}

function messageOf(answer) {
  if (answer === undefined) return 'no answer from the store';
  if (answer.json && typeof answer.json.message === 'string') return answer.json.message;
  return `the store answered ${answer.status}`;
}

/**
 * A change sent that may have been made: no answer came (fetch failed), or the Error says its
 * outcome is unknown. Never told as "not added" or "not deleted": the store is asked first.
 */
function inDoubt(answer) {
  return answer === undefined || answer.json?.outcome === 'unknown';
}

/** A change's answer, or undefined when none came (the connection failed after it may have gone out). */
async function change(method, path, body) {
  try {
    return await api(method, path, body);
  } catch {
    return undefined;
  }
}

/** What the store holds under an id: `found` (with the plant), `absent`, or `failed` to tell. */
async function readBack(id) {
  const answer = await change('GET', `/plants/${id}`);
  if (answer?.status === 200) return { kind: 'found', plant: answer.json };
  if (answer?.status === 404) return { kind: 'absent' };
  return { kind: 'failed' };
}

function cell(row, text, className) {
  const td = document.createElement('td');
  td.textContent = text;
  if (className) td.className = className;
  row.append(td);
  return td;
}

// ---- token ----

async function openStore(candidate) {
  token = candidate;
  const answer = await api('GET', '/_serve/journal');
  if (answer.status !== 200) {
    token = '';
    sessionStorage.removeItem(TOKEN_KEY);
    $('token-error').textContent = messageOf(answer);
    $('login').hidden = false;
    $('app').hidden = true;
    $('token').focus();
    return;
  }
  sessionStorage.setItem(TOKEN_KEY, candidate);
  $('token-error').textContent = '';
  $('login').hidden = true;
  $('app').hidden = false;
  showServer(answer.json);
  showLog(answer.json.requests);
  void loadPlants();
  void loadControls();
  void pollRates();
  void streamLog();
  $('plants-title').focus?.();
}

function showServer(info) {
  const kind = { sqlite: 'a SQLite file', memory: 'memory only', postgres: 'PostgreSQL' }[info.store] ?? info.store;
  $('server-info').textContent = `Instance ${info.instance}, plants kept in ${kind}.`;
  $('instance-note').textContent =
    `The request log, the chart and the controls are this instance's (${info.instance}) alone` +
    (info.store === 'postgres'
      ? ': other plants serve instances on the same database keep their own, and their adds show here only when this page reloads the plants.'
      : '.') +
    ` The server keeps its last ${info.maxEntries} requests (at most ${Math.round(info.maxBytes / 1024)} KiB).`;
}

// ---- plants ----

/** The list as the user moves through it: an earlier add or delete's message goes. */
function browsePlants() {
  $('plants-message').textContent = '';
  void loadPlants();
}

async function loadPlants() {
  lastPlantsLoad = Date.now();
  const status = $('plants-status');
  if (filterId !== undefined) {
    shownPlants = undefined;
    const answer = await api('GET', `/plants/${filterId}`);
    $('next-page').disabled = true;
    if (answer.status === 200) {
      renderPlants([answer.json]);
      status.textContent = `Plant ${filterId}.`;
    } else {
      renderPlants([]);
      status.textContent = messageOf(answer);
    }
    return;
  }
  const after = pageStarts[pageStarts.length - 1];
  const answer = await api('GET', `/plants?limit=${PAGE_SIZE}${after === undefined ? '' : `&after=${after}`}`);
  if (answer.status !== 200) {
    shownPlants = undefined;
    status.textContent = messageOf(answer);
    return;
  }
  // Reloaded because the store changed, but not this page of it (a load adding ids past it): nothing to redraw.
  const shown = `${after}\n${answer.headers.get('link') ?? ''}\n${answer.text}`;
  if (shown === shownPlants) return;
  shownPlants = shown;
  renderPlants(answer.json);
  const link = answer.headers.get('link') ?? '';
  const match = /[?&]after=(-?\d+)/.exec(link);
  nextAfter = match ? match[1] : undefined;
  $('next-page').disabled = nextAfter === undefined;
  status.textContent =
    answer.json.length === 0
      ? 'No plants.'
      : `${answer.json.length} plant${answer.json.length === 1 ? '' : 's'} on page ${pageStarts.length}${nextAfter === undefined ? '' : ', more on the next'}.`;
}

function renderPlants(plants) {
  const body = $('plants');
  body.replaceChildren();
  for (const plant of plants) {
    const row = document.createElement('tr');
    row.dataset.id = plant.id;
    cell(row, plant.id, 'id');
    cell(row, plant.name);
    cell(row, plant.tag ?? '');
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'delete';
    button.textContent = 'Delete';
    button.setAttribute('aria-label', `Delete plant ${plant.id}`);
    button.addEventListener('click', () => deletePlant(plant));
    cell(row, '').append(button);
    body.append(row);
  }
}

async function deletePlant(plant) {
  if (!window.confirm(`Delete plant ${plant.id} (${plant.name})? This cannot be undone.`)) return;
  const answer = await change('DELETE', `/plants/${plant.id}`);
  let text = answer?.status === 204 ? `Deleted plant ${plant.id}.` : messageOf(answer);
  if (answer?.status !== 204 && inDoubt(answer)) {
    const read = await readBack(plant.id);
    if (read.kind === 'absent') text = `Deleted plant ${plant.id} (confirmed by reading it back).`;
    else if (read.kind === 'found') text = `Not deleted: ${messageOf(answer)} (read back, it is still there).`;
    else
      text = `Plant ${plant.id} may or may not be deleted: ${messageOf(answer)}. Find it by id once the store answers.`;
  }
  $('plants-message').textContent = text;
  await loadPlants().catch(() => undefined);
  $('plants-title').focus?.();
}

function checkId(text) {
  if (!/^-?(0|[1-9][0-9]*)$/.test(text)) return `id: ${ID_MESSAGE}`;
  const id = BigInt(text);
  if (id < INT64_MIN || id > INT64_MAX || text === '-0') return `id: ${ID_MESSAGE}`;
  return undefined;
}

function checkText(field, value, nonEmpty) {
  if (nonEmpty && value.length === 0) return `${field}: must not be empty`;
  if (value.length > MAX_TEXT) return `${field}: must be at most ${MAX_TEXT} characters`;
  if (!value.isWellFormed()) return `${field}: must be valid Unicode (no lone surrogates)`;
  return undefined;
}

async function addPlant(event) {
  event.preventDefault();
  const id = $('add-id').value.trim();
  const name = $('add-name').value;
  const tag = $('add-tag').value;
  const message = $('add-message');
  const problem =
    checkId(id) ?? checkText('name', name, true) ?? (tag === '' ? undefined : checkText('tag', tag, false));
  if (problem !== undefined) {
    message.className = 'error';
    message.textContent = `Not added: ${problem}`;
    return;
  }
  // The id goes out as the digits typed: JSON.stringify of a number would round it past 2^53.
  const body = `{"id":${id},"name":${JSON.stringify(name)}${tag === '' ? '' : `,"tag":${JSON.stringify(tag)}`}}`;
  const answer = await change('POST', '/plants', body);
  if (answer?.status === 200) {
    message.className = '';
    message.textContent = `Added plant ${answer.json.id} (${answer.json.name}).`;
    $('add-form').reset();
    await loadPlants();
    return;
  }
  if (!inDoubt(answer)) {
    message.className = 'error';
    message.textContent = `Not added: ${messageOf(answer)}`;
    return;
  }
  // It may be stored: what the store holds under the id tells (stored exactly as sent: added).
  message.className = '';
  message.textContent = `Checking whether plant ${id} was stored…`;
  const read = await readBack(id);
  message.className = 'error';
  const sent =
    read.kind === 'found' &&
    read.plant.name === name &&
    (tag === '' ? read.plant.tag === undefined : read.plant.tag === tag);
  if (sent) {
    message.className = '';
    message.textContent = `Added plant ${id} (${name}), confirmed by reading it back.`;
    $('add-form').reset();
    await loadPlants().catch(() => undefined);
  } else if (read.kind === 'found') {
    message.textContent = `Not added: a plant with id ${id} is stored with other data.`;
  } else if (read.kind === 'absent') {
    message.textContent = `Not added: ${messageOf(answer)} (read back, it is not there).`;
  } else {
    message.textContent = `Plant ${id} may or may not be added: ${messageOf(answer)}. Find it by id once the store answers.`;
  }
}

// ---- request log ----

/**
 * Shows entries (oldest first), newest on top, at the next frame: whatever arrives before it is
 * drawn in one update, and under load only the newest LOG_ROWS are drawn at all.
 */
function showLog(entries) {
  if (entries.length === 0) return;
  logQueue.push(...entries);
  if (logQueue.length > LOG_ROWS) logQueue = logQueue.slice(-LOG_ROWS);
  if (logDrawn) {
    logDrawn = false;
    requestAnimationFrame(drawLog);
  }
}

function drawLog() {
  logDrawn = true;
  // A reconnected stream starts after the last entry shown: nothing twice.
  const fresh = logQueue.filter((entry) => entry.seq > lastSeq);
  logQueue = [];
  if (fresh.length === 0) return;
  lastSeq = fresh[fresh.length - 1].seq;
  // Each new entry takes the oldest row once the log is full, rewritten and moved to the top: the
  // rows already drawn keep their text, so a burst costs the browser its own rows only.
  const log = $('log');
  for (const entry of fresh) {
    const row = log.childElementCount < LOG_ROWS ? logRow() : log.lastElementChild;
    const cells = row.cells;
    setCell(cells[0], entry.time.slice(11, 23));
    setCell(cells[1], entry.method);
    setCell(cells[2], entry.path);
    setCell(cells[3], String(entry.status), entry.status >= 500 ? 'status-error' : '');
    setCell(cells[4], String(entry.durationMs));
    setCell(cells[5], entry.requestId);
    setCell(cells[6], entry.fault ?? '', entry.fault ? 'fault' : '');
    log.prepend(row);
  }
}

/** An empty row of the log: a cell for each column, each holding one text node. */
function logRow() {
  const row = document.createElement('tr');
  for (const className of ['', '', 'path', '', '', 'request-id', '']) cell(row, '', className).append('');
  return row;
}

function setCell(td, text, className) {
  if (td.firstChild.data !== text) td.firstChild.data = text;
  if (className !== undefined && td.className !== className) td.className = className;
}

/** A change to the plants by any client reloads the list (a burst of adds, once). */
function noticeChange(entry) {
  const changed =
    (entry.method === 'POST' && entry.path === '/plants' && entry.status === 200) ||
    (entry.method === 'DELETE' && entry.status === 204) ||
    (entry.method === 'POST' && entry.path === '/reset' && entry.status === 200);
  if (changed) scheduleReload();
}

/**
 * Under load (the server left requests out of the stream in the last few seconds): the page asks
 * for less, so that the browser keeps off the cores the server and its clients need.
 */
function underLoad() {
  return Date.now() - lastGap < 10_000;
}

/** A burst of changes reloads the list once; a steady stream of them, at most once a second (under load, every 5 s). */
function scheduleReload() {
  if (reloadTimer !== undefined) return;
  reloadTimer = setTimeout(
    () => {
      reloadTimer = undefined;
      void loadPlants();
    },
    Math.max(250, lastPlantsLoad + (underLoad() ? 5000 : 1000) - Date.now()),
  );
}

/** Server-Sent Events read with fetch: EventSource cannot send the token, and it never goes in a URL. */
async function streamLog() {
  const status = $('log-status');
  for (;;) {
    streamAbort = new AbortController();
    try {
      const response = await fetch(`/_serve/events?after=${lastSeq}`, {
        headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
        cache: 'no-store',
        credentials: 'omit',
        signal: streamAbort.signal,
      });
      if (response.status !== 200) {
        status.textContent = `Live log stopped: the store answered ${response.status}.`;
        return;
      }
      status.textContent = 'Live.';
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        const entries = [];
        let start = 0;
        for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n', start)) {
          handleEvent(buffer.slice(start, end), entries);
          start = end + 2;
        }
        buffer = buffer.slice(start);
        showLog(entries);
      }
    } catch {
      // The server went away: try again shortly.
    }
    status.textContent = 'Live log interrupted; reconnecting…';
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
}

function handleEvent(block, entries) {
  let event = 'message';
  let data = '';
  for (const line of block.split('\n')) {
    if (line.startsWith('event: ')) event = line.slice(7);
    else if (line.startsWith('data: ')) data += line.slice(6);
  }
  if (event === 'request') {
    const entry = JSON.parse(data);
    entries.push(entry);
    noticeChange(entry);
  } else if (event === 'rates') {
    // Sent with each gap: under load the chart comes with the log, in one frame.
    showRates(data);
  } else if (event === 'gap') {
    lastGap = Date.now();
    // Too many to draw: skipped by the server, which still journals them. Any may have been an add.
    $('log-status').textContent =
      `Live; ${JSON.parse(data).missed} requests in between were too many to draw (GET /_serve/journal has them).`;
    scheduleReload();
  }
}

// ---- rates ----

/** The chart's figures every 2 s; under load they come with the event stream instead. */
async function pollRates() {
  try {
    if (!underLoad()) await loadRates();
  } catch {
    // The server went away: the next poll tries again.
  }
  setTimeout(pollRates, 2000);
}

async function loadRates() {
  const answer = await api('GET', '/_serve/rates');
  if (answer.status === 200) showRates(answer.text);
}

function showRates(text) {
  if (text === shownRates) return;
  shownRates = text;
  drawChart(JSON.parse(text));
}

function drawChart(rates) {
  const svg = $('chart-lines');
  const ns = 'http://www.w3.org/2000/svg';
  svg.replaceChildren();
  const start = rates.now - rates.seconds + 1;
  const byT = new Map(rates.buckets.map((b) => [b[0], b]));
  const maxRate = Math.max(1, ...rates.buckets.map((b) => b[1]));
  const maxMs = Math.max(1, ...rates.buckets.map((b) => b[2]));
  const line = (pick, max, colour) => {
    const points = [];
    for (let t = start; t <= rates.now; t += 1) {
      const bucket = byT.get(t);
      const x = ((t - start) / (rates.seconds - 1)) * 600;
      const y = 115 - ((bucket ? pick(bucket) : 0) / max) * 105;
      points.push(`${x.toFixed(1)},${y.toFixed(1)}`);
    }
    const polyline = document.createElementNS(ns, 'polyline');
    polyline.setAttribute('points', points.join(' '));
    polyline.setAttribute('fill', 'none');
    polyline.setAttribute('stroke', colour);
    polyline.setAttribute('stroke-width', '1.5');
    polyline.setAttribute('vector-effect', 'non-scaling-stroke');
    svg.append(polyline);
  };
  line((b) => b[1], maxRate, '#2d6a2d');
  line((b) => b[2], maxMs, '#a4462a');
  const last = rates.buckets.filter((b) => b[0] >= rates.now - 10);
  const total = rates.buckets.reduce((sum, b) => sum + b[1], 0);
  const recent = last.reduce((sum, b) => sum + b[1], 0) / 10;
  const mean =
    last.length === 0
      ? 0
      : last.reduce((sum, b) => sum + b[1] * b[2], 0) /
        Math.max(
          1,
          last.reduce((s, b) => s + b[1], 0),
        );
  $('rates-summary').textContent =
    `${total} requests in the last 5 minutes; peak ${maxRate}/s; last 10 s: ${recent.toFixed(1)}/s, mean ${mean.toFixed(1)} ms.`;
}

// ---- controls ----

async function loadControls() {
  const answer = await api('GET', '/_serve/controls');
  if (answer.status !== 200) return;
  showControls(answer.json);
}

function showControls(state) {
  $('delay-min').value = state.delay === null ? '0' : String(state.delay.minMs);
  $('delay-max').value = state.delay === null ? '0' : String(state.delay.maxMs);
  for (const kind of FAULT_KINDS) {
    $(`fault-${kind}`).value = String(state.faults.find((fault) => fault.kind === kind)?.rate ?? 0);
  }
  $('fault-seed').value = String(state.faultSeed);
  $('controls-fields').disabled = !state.editable;
  $('controls-mode').textContent = state.editable
    ? 'Editable: this server was started with --allow-reset. Changes apply to the next plant request.'
    : 'Read-only: start plants serve with --allow-reset to change these and to reset the store.';
}

async function applyControls(event) {
  event.preventDefault();
  const message = $('controls-message');
  const number = (id) => ($(id).value.trim() === '' ? 0 : Number($(id).value));
  const minMs = number('delay-min');
  const maxMs = number('delay-max');
  const body = {
    delay: minMs === 0 && maxMs === 0 ? null : { minMs, maxMs },
    faults: FAULT_KINDS.map((kind) => ({ kind, rate: number(`fault-${kind}`) })).filter((f) => f.rate !== 0),
    faultSeed: number('fault-seed'),
  };
  const answer = await api('PUT', '/_serve/controls', JSON.stringify(body));
  if (answer.status === 200) {
    showControls(answer.json);
    message.className = '';
    message.textContent = 'Applied.';
  } else {
    message.className = 'error';
    message.textContent = messageOf(answer);
  }
}

async function resetStore() {
  if (!window.confirm('Put the store back to its seed? Every plant added since is removed.')) return;
  const answer = await api('POST', '/reset');
  const message = $('controls-message');
  message.className = answer.status === 200 ? '' : 'error';
  message.textContent = answer.status === 200 ? 'The store is back to its seed.' : messageOf(answer);
  pageStarts = [undefined];
  filterId = undefined;
  $('filter-id').value = '';
  await loadPlants();
}

// ---- wiring ----

document.addEventListener('DOMContentLoaded', () => {
  $('plants-title').tabIndex = -1;
  $('token-form').addEventListener('submit', (event) => {
    event.preventDefault();
    void openStore($('token').value.trim());
  });
  $('filter-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const text = $('filter-id').value.trim();
    if (text === '') {
      filterId = undefined;
    } else {
      const problem = checkId(text);
      if (problem !== undefined) {
        $('plants-status').textContent = problem;
        return;
      }
      filterId = text;
    }
    browsePlants();
  });
  $('show-all').addEventListener('click', () => {
    filterId = undefined;
    $('filter-id').value = '';
    pageStarts = [undefined];
    browsePlants();
  });
  $('first-page').addEventListener('click', () => {
    pageStarts = [undefined];
    browsePlants();
  });
  $('next-page').addEventListener('click', () => {
    if (nextAfter === undefined) return;
    pageStarts.push(nextAfter);
    browsePlants();
  });
  $('add-form').addEventListener('submit', addPlant);
  $('controls-form').addEventListener('submit', applyControls);
  $('reset-store').addEventListener('click', resetStore);
  const kept = sessionStorage.getItem(TOKEN_KEY);
  if (kept) void openStore(kept);
  else $('token').focus();
});
