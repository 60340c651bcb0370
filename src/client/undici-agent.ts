import v8 from 'node:v8';
import type { Dispatcher as DispatcherType, EnvHttpProxyAgent as EnvHttpProxyAgentType } from 'undici';
import api from 'undici/lib/api/index.js';
import Agent from 'undici/lib/dispatcher/agent.js';
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
import EnvHttpProxyAgent from 'undici/lib/dispatcher/env-http-proxy-agent.js';
import { PIPELINING, PipeliningDispatcher } from './pipelining-dispatcher.js';

/**
 * undici's proxy-aware agent, without undici's index (and, where no proxy is set, the adds
 * PlantClient pipelines on connections of PipeliningDispatcher's own). The index loads every part of undici
 * (fetch, WebSocket, caches, mocks…) and with them Node's own copy of undici, most of what a
 * one-record `plants add` spent starting up. These are the modules the index
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
  const agent = new EnvHttpProxyAgent(ca === undefined ? rest : { ...rest, connect: { ca }, requestTls: { ca } });
  // With no proxy set at all, nothing goes through one: the adds go out over connections of
  // PipeliningDispatcher's own, as to a store on this machine. Through a proxy, undici does it all.
  if (!given.httpProxy && !given.httpsProxy) {
    return new PipeliningDispatcher({ fallback: agent, connections: given.connections ?? 1, ca });
  }
  return agent;
}

/**
 * For a store on this machine: no proxy, whatever the environment says. The adds PlantClient
 * pipelines go over PipeliningDispatcher's own connections (see there why); every other request
 * through a plain undici Agent. `ca`: the certificates to trust (`--ca-cert`), in place of
 * Node's default list.
 */
export function createDirectAgent(options: {
  connections: number;
  ca?: string[];
  shortLived?: boolean;
}): DispatcherType {
  useBaselineWasmCompiler(options.shortLived === true);
  if (!('request' in Dispatcher.prototype)) Object.assign(Dispatcher.prototype, api);
  const { ca, connections } = options;
  const fallback = new Agent(ca === undefined ? { connections } : { connections, connect: { ca } });
  return new PipeliningDispatcher({ fallback, connections, ca });
}

function withPipelining<T extends { connections?: number | null | undefined }>(options: T): T & { pipelining: number } {
  return { ...options, pipelining: PIPELINING };
}

/**
 * undici parses HTTP with llhttp compiled to WebAssembly at the first connection. V8's
 * optimising compiler (TurboFan) spends more time and memory on it than a short command's
 * requests need, to parse a few hundred bytes per answer; the baseline compiler (Liftoff) alone
 * does the job at a fraction of the cost.
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
 * the other one: the fast route's (src/entry/compile-cache.ts), made as the run ends, would never be taken. A
 * short run (one command of the fast route) puts the flags back once its requests are done (not
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
