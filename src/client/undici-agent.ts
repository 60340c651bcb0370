import type { Socket } from 'node:net';
import v8 from 'node:v8';
import type {
  Agent as AgentType,
  Dispatcher as DispatcherType,
  EnvHttpProxyAgent as EnvHttpProxyAgentType,
} from 'undici';
import api from 'undici/lib/api/index.js';
import buildConnector from 'undici/lib/core/connect.js';
import Agent from 'undici/lib/dispatcher/agent.js';
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
import EnvHttpProxyAgent from 'undici/lib/dispatcher/env-http-proxy-agent.js';

/**
 * undici's proxy-aware agent, without undici's index. The index loads every part of undici
 * (fetch, WebSocket, caches, mocks…) and with them Node's own copy of undici: measured here,
 * most of what a one-record `plants add` spent starting up. These are the modules the index
 * itself builds the agent from, and the request API is attached to Dispatcher the way the
 * index does it. undici has no "exports" map, so these files are reachable by path; the
 * types are the package's own.
 */
export function createProxyAgent(
  options: EnvHttpProxyAgentType.Options & { ca?: string[]; shortLived?: boolean },
): DispatcherType {
  useBaselineWasmCompiler(options.shortLived === true);
  if (!('request' in Dispatcher.prototype)) Object.assign(Dispatcher.prototype, api);
  const { ca, shortLived: _, ...given } = options;
  const rest = withPipelining(given);
  // `connect` is the TLS of a direct connection; `requestTls` that of one tunnelled through a proxy.
  return new EnvHttpProxyAgent(ca === undefined ? rest : { ...rest, connect: { ca }, requestTls: { ca } });
}

/**
 * A plain agent, for a store on this machine: no proxy, whatever the environment says. `ca`:
 * the certificates to trust (`--ca-cert`), in place of Node's default list.
 */
export function createDirectAgent(options: {
  connections: number;
  ca?: string[];
  shortLived?: boolean;
}): DispatcherType {
  useBaselineWasmCompiler(options.shortLived === true);
  if (!('request' in Dispatcher.prototype)) Object.assign(Dispatcher.prototype, api);
  const { ca, shortLived: _, ...given } = options;
  return new WriteBatchingAgent(withPipelining(given), ca === undefined ? {} : { ca });
}

/**
 * An Agent whose requests dispatched in one turn of the event loop go out together: undici
 * writes each request with a system call of its own (cork, write, uncork); with the sockets
 * corked until the turn's promise reactions have run, the requests a batch of answers let
 * through (a bulk add sends one for each answer) share one write per connection.
 */
class WriteBatchingAgent extends Agent {
  /** The agent's open connections, as its connector made them. */
  readonly #sockets: Set<Socket>;
  #corked: Socket[] | undefined;

  constructor(options: AgentType.Options, tls: { ca?: string[] }) {
    const sockets = new Set<Socket>();
    const connect = buildConnector({ ...tls });
    super({
      ...options,
      connect: (connectOptions, callback) =>
        connect(connectOptions, (...result) => {
          const socket = result[1];
          if (socket != null) {
            sockets.add(socket);
            socket.once('close', () => sockets.delete(socket));
          }
          callback(...result);
        }),
    });
    this.#sockets = sockets;
  }

  override dispatch(options: AgentType.DispatchOptions, handler: DispatcherType.DispatchHandler): boolean {
    if (this.#corked === undefined && this.#sockets.size > 0) {
      const corked = [...this.#sockets];
      for (const socket of corked) socket.cork();
      this.#corked = corked;
      setImmediate(() => {
        this.#corked = undefined;
        for (const socket of corked) socket.uncork();
      });
    }
    return super.dispatch(options, handler);
  }
}

/**
 * How many requests may wait for their answers on one connection. Only the adds the client
 * marks as safe to repeat are pipelined (PlantClient#send says why they are); every other request
 * waits for a connection of its own, as without pipelining. With a bulk add's requests in flight
 * spread over `connections / PIPELINING` connections, each write and each read of a socket
 * carries several requests or answers: fewer system calls per record, on both sides.
 */
export const PIPELINING = 8;

function withPipelining<T extends { connections?: number | null | undefined }>(options: T): T & { pipelining: number } {
  return { ...options, pipelining: PIPELINING };
}

/**
 * undici parses HTTP with llhttp compiled to WebAssembly at the first connection. V8's
 * optimising compiler (TurboFan) spends tens of milliseconds and ~35 MB on it, to parse a few
 * hundred bytes per answer; the baseline compiler (Liftoff) alone does the job at a fraction
 * of the cost. Measured here: one `plants add` 313 → 232 ms, RSS of one request 98 → 63 MB.
 */
function useBaselineWasmCompiler(shortLived: boolean): void {
  try {
    v8.setFlagsFromString('--liftoff-only');
  } catch {
    // An engine without the flag keeps its default.
    return;
  }
  if (shortLived && !userSetWasmFlags()) flagsToRestore = '--no-liftoff-only --wasm-tier-up --wasm-dynamic-tiering';
}

/** What restoreWasmCompilerFlags sets, once the run's requests are done; undefined: nothing. */
let flagsToRestore: string | undefined;

/**
 * A flag set at run time changes V8's flag hash, and V8 then refuses any code cache made with
 * the other one: bin/run.js's of the fast path, made as the run ends, would never be taken. A
 * short run (one command of the fast path) puts the flags back once its requests are done (not
 * earlier: V8 compiles the parser's functions lazily, as requests first call them), with the two
 * that --liftoff-only turned off (on by default: V8's flag-definitions.h), so that the hash is
 * that of the start again. Bulk adds keep the flag: their parser would be tiered up as it warms.
 */
export function restoreWasmCompilerFlags(): void {
  if (flagsToRestore === undefined) return;
  v8.setFlagsFromString(flagsToRestore);
  flagsToRestore = undefined;
}

/** The user's own WebAssembly compiler flags (NODE_OPTIONS or node's arguments) stay as given. */
function userSetWasmFlags(): boolean {
  return [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((arg) =>
    /liftoff|wasm-tier-up|wasm-dynamic-tiering/.test(arg),
  );
}
