import v8 from 'node:v8';
import type { Dispatcher as DispatcherType, EnvHttpProxyAgent as EnvHttpProxyAgentType } from 'undici';
import api from 'undici/lib/api/index.js';
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
export function createProxyAgent(options: EnvHttpProxyAgentType.Options & { ca?: string[] }): DispatcherType {
  useBaselineWasmCompiler();
  if (!('request' in Dispatcher.prototype)) Object.assign(Dispatcher.prototype, api);
  const { ca, ...rest } = options;
  // `connect` is the TLS of a direct connection; `requestTls` that of one tunnelled through a proxy.
  return new EnvHttpProxyAgent(ca === undefined ? rest : { ...rest, connect: { ca }, requestTls: { ca } });
}

/**
 * A plain agent, for a store on this machine: no proxy, whatever the environment says. `ca`:
 * the certificates to trust (`--ca-cert`), in place of Node's default list.
 */
export function createDirectAgent(options: { connections: number; ca?: string[] }): DispatcherType {
  useBaselineWasmCompiler();
  if (!('request' in Dispatcher.prototype)) Object.assign(Dispatcher.prototype, api);
  const { ca, ...rest } = options;
  return new Agent(ca === undefined ? rest : { ...rest, connect: { ca } });
}

/**
 * undici parses HTTP with llhttp compiled to WebAssembly at the first connection. V8's
 * optimising compiler (TurboFan) spends tens of milliseconds and ~35 MB on it, to parse a few
 * hundred bytes per answer; the baseline compiler (Liftoff) alone does the job at a fraction
 * of the cost. Measured here: one `plants add` 313 → 232 ms, RSS of one request 98 → 63 MB.
 */
function useBaselineWasmCompiler(): void {
  try {
    v8.setFlagsFromString('--liftoff-only');
  } catch {
    // An engine without the flag keeps its default.
  }
}
