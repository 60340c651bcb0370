import type { Dispatcher, EnvHttpProxyAgent } from 'undici';
import { PIPELINING, PipeliningDispatcher } from './pipelining-dispatcher.js';

/**
 * The client's dispatcher, honouring HTTP_PROXY, HTTPS_PROXY and NO_PROXY. With no proxy set at
 * all, the adds PlantClient pipelines go out over connections of PipeliningDispatcher's own (see
 * there why), and every other request through undici's agent, loaded when the first of them is
 * sent: a one-record `plants add` never loads it. Through a proxy, undici does it all.
 */
export async function createProxyAgent(
  options: EnvHttpProxyAgent.Options & { ca?: string[]; shortLived?: boolean },
): Promise<Dispatcher> {
  const { ca, shortLived = false, ...given } = options;
  const proxyAgent = async () =>
    (await import('./undici-dispatchers.js')).undiciProxyAgent({ ...given, pipelining: PIPELINING, ca, shortLived });
  if (!given.httpProxy && !given.httpsProxy) {
    return new PipeliningDispatcher({
      fallback: proxyAgent,
      connections: given.connections ?? 1,
      ca,
      leaveIdleToExit: shortLived,
    });
  }
  return proxyAgent();
}

/**
 * For a store on this machine: no proxy, whatever the environment says. The adds PlantClient
 * pipelines go over PipeliningDispatcher's own connections (see there why); every other request
 * through a plain undici Agent, loaded when the first of them is sent. `ca`: the certificates
 * to trust (`--ca-cert`), in place of Node's default list.
 */
export function createDirectAgent(options: { connections: number; ca?: string[]; shortLived?: boolean }): Dispatcher {
  const { ca, connections, shortLived = false } = options;
  return new PipeliningDispatcher({
    fallback: async () => (await import('./undici-dispatchers.js')).undiciAgent({ connections, ca, shortLived }),
    connections,
    ca,
    leaveIdleToExit: shortLived,
  });
}
