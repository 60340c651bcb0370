import { isIP } from 'node:net';
import { connect } from 'node:tls';

/** Whether a TLS handshake succeeds at host:port; the certificate is not checked, as nothing is sent. */
export function speaksTls(host: string, port: number, timeoutMs = 2000): Promise<boolean> {
  return new Promise((resolve) => {
    const hostname = host.replace(/^\[|\]$/g, '');
    const socket = connect({
      host: hostname,
      port,
      servername: isIP(hostname) === 0 ? hostname : undefined,
      rejectUnauthorized: false,
    });
    const done = (speaks: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(speaks);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.once('secureConnect', () => done(true));
    socket.once('error', () => done(false));
    socket.once('close', () => done(false));
  });
}
