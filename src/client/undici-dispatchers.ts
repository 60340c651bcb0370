import type { Dispatcher as DispatcherType, EnvHttpProxyAgent as EnvHttpProxyAgentType } from 'undici';
import api from 'undici/lib/api/index.js';
import Agent from 'undici/lib/dispatcher/agent.js';
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
import EnvHttpProxyAgent from 'undici/lib/dispatcher/env-http-proxy-agent.js';
import { useBaselineWasmCompiler } from './wasm-compiler-flags.js';

/**
 * undici's own dispatchers, without undici's index. The index loads every part of undici
 * (fetch, WebSocket, caches, mocks…) and with them Node's own copy of undici, most of what a
 * one-record `plants add` spent starting up. These are the modules the index itself builds the
 * agent from, and the request API is attached to Dispatcher the way the index does it (undici's
 * ProxyAgent tunnels with it). undici has no "exports" map, so these files are reachable by
 * path; the types are the package's own (undici-internals.d.ts).
 */

/** undici's proxy-aware agent: HTTP_PROXY, HTTPS_PROXY and NO_PROXY as given. */
export function undiciProxyAgent(
  options: EnvHttpProxyAgentType.Options & { ca?: string[] | undefined; shortLived: boolean },
): DispatcherType {
  prepare(options.shortLived);
  const { ca, shortLived: _, ...rest } = options;
  // `connect` is the TLS of a direct connection; `requestTls` that of one tunnelled through a proxy.
  return new EnvHttpProxyAgent(ca === undefined ? rest : { ...rest, connect: { ca }, requestTls: { ca } });
}

/** undici's plain Agent: no proxy, whatever the environment says. */
export function undiciAgent(options: {
  connections: number;
  ca?: string[] | undefined;
  shortLived: boolean;
}): DispatcherType {
  prepare(options.shortLived);
  const { ca, connections } = options;
  return new Agent(ca === undefined ? { connections } : { connections, connect: { ca } });
}

function prepare(shortLived: boolean): void {
  useBaselineWasmCompiler(shortLived);
  if (!('request' in Dispatcher.prototype)) Object.assign(Dispatcher.prototype, api);
}
