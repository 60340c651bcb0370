import { Agent, type Dispatcher, EnvHttpProxyAgent } from 'undici';
import { isLoopbackHost } from './base-url.js';

/**
 * How many requests may wait for their answers on one connection. A bulk add's requests in
 * flight are spread over `connections / PIPELINING` connections, so that each write and each
 * read of a socket carries several requests or answers: fewer system calls per record, on both
 * sides. Only the adds are pipelined (Transport.send says why that is safe for them).
 */
export const PIPELINING = 8;

/** The options of undici's agents plants sets: requests in flight at most, and the certificates to trust. */
export interface AgentOptions {
  /** Requests in flight at most, to one origin: `connections / PIPELINING` connections, rounded up. */
  connections: number;
  /** The certificates to trust (`--ca-cert`), in place of Node's default list. */
  ca?: string[] | undefined;
}

/** undici's connections for `connections` requests in flight, PIPELINING on each. */
function pooled(connections: number): { connections: number; pipelining: number } {
  return { connections: Math.max(1, Math.ceil(connections / PIPELINING)), pipelining: PIPELINING };
}

/**
 * The client's dispatcher for a store at `baseUrl`: direct to this machine, whatever the
 * proxies say (as NO_PROXY conventionally holds loopback: a proxy would read a plain-http token
 * that was only allowed because it never left the machine), else through them, honouring
 * HTTP_PROXY, HTTPS_PROXY and NO_PROXY as given.
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

/** For a store on this machine: no proxy, whatever the environment says. */
export function createDirectAgent(options: AgentOptions): Dispatcher {
  const { ca, connections } = options;
  return new Agent({ ...pooled(connections), ...(ca === undefined ? {} : { connect: { ca } }) });
}

/**
 * Closes the run's dispatcher once its command is done, when every request the command awaited
 * has settled: what undici may still hold then are requests the client gave up on (their time
 * ran out while queued or in flight), which must not be written now, nor keep the process
 * waiting for a connection undici is still trying. So it is destroyed, not closed, and with an
 * error whose stack is already text: `close()` destroys with undici's own ClientDestroyedError,
 * whose stack Node's streams read at the socket's destroy, and formatting that stack counts the
 * line ends of the whole bundle its frames are in (about 5M instructions of a one-request
 * command, bench a).
 */
export async function closeDispatcher(dispatcher: Dispatcher): Promise<void> {
  await dispatcher.destroy(DONE);
}

const DONE = Object.assign(new Error('plants is done with its connections'), {
  stack: 'plants is done with its connections',
});
