import { Agent, type Dispatcher, EnvHttpProxyAgent } from 'undici';
import { isLoopbackHost } from './base-url.js';

/**
 * Requests waiting for their answers on one connection: each write and read of a socket then carries
 * several, fewer system calls per record on both sides. Only adds are pipelined (Transport.send).
 */
export const PIPELINING = 8;

export interface AgentOptions {
  /** Requests in flight at most, to one origin: `connections / PIPELINING` connections, rounded up. */
  connections: number;
  /** `--ca-cert`'s, in place of Node's default list. */
  ca?: string[] | undefined;
}

function pooled(connections: number): { connections: number; pipelining: number } {
  return { connections: Math.max(1, Math.ceil(connections / PIPELINING)), pipelining: PIPELINING };
}

/**
 * Direct to this machine whatever the proxies say (a proxy would read a plain-http token allowed
 * only because it never left the machine), else through HTTP_PROXY, HTTPS_PROXY and NO_PROXY.
 */
export function createAgent(
  baseUrl: URL,
  options: AgentOptions & { httpProxy: string; httpsProxy: string; noProxy: string },
): Dispatcher {
  if (isLoopbackHost(baseUrl.hostname)) return createDirectAgent(options);
  const { ca, connections, ...proxies } = options;
  // `connect` is the TLS of a direct connection; `requestTls` that of one tunnelled through a proxy.
  const tls = ca === undefined ? {} : { connect: { ca }, requestTls: { ca } };
  return new EnvHttpProxyAgent({ ...proxies, ...pooled(connections), ...tls });
}

export function createDirectAgent(options: AgentOptions): Dispatcher {
  const { ca, connections } = options;
  return new Agent({ ...pooled(connections), ...(ca === undefined ? {} : { connect: { ca } }) });
}

/**
 * Destroyed, not closed: what undici still holds once the command is done are requests the client
 * gave up on, not to be written now nor waited for. With an error whose stack is already text:
 * formatting the stack of undici's own ClientDestroyedError cost about 5M instructions (bench a).
 */
export async function closeDispatcher(dispatcher: Dispatcher): Promise<void> {
  await dispatcher.destroy(DONE);
}

const DONE = Object.assign(new Error('plants is done with its connections'), {
  stack: 'plants is done with its connections',
});
