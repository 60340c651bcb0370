import { describe, expect, it } from 'vitest';
import { classifyNetworkFailure, type NetworkFailure, unreachableMessage } from '../../src/client/errors.js';

const coded = (code: string, message = 'failed', extra: object = {}) =>
  Object.assign(new Error('fetch failed', { cause: Object.assign(new Error(message), { code }, extra) }), {});

describe('classifyNetworkFailure: what kind of failure an error is', () => {
  it.each<[string, unknown, NetworkFailure]>([
    ['a refused connection', coded('ECONNREFUSED'), { kind: 'refused' }],
    ['an unknown host', coded('ENOTFOUND'), { kind: 'dns' }],
    ['a reset', coded('ECONNRESET'), { kind: 'closed' }],
    [
      'a self-signed certificate',
      coded('DEPTH_ZERO_SELF_SIGNED_CERT'),
      { kind: 'certificate', code: 'DEPTH_ZERO_SELF_SIGNED_CERT', names: [] },
    ],
    [
      'a certificate for other names (node carries the certificate)',
      coded('ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames", {
        cert: { subjectaltname: 'DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1' },
      }),
      {
        kind: 'certificate',
        code: 'ERR_TLS_CERT_ALTNAME_INVALID',
        names: ['localhost', '127.0.0.1', '0:0:0:0:0:0:0:1'],
      },
    ],
    ['plain HTTP met over TLS', coded('ERR_SSL_WRONG_VERSION_NUMBER', 'wrong version number'), { kind: 'not-tls' }],
    [
      'another TLS failure',
      coded('ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE'),
      { kind: 'tls', code: 'ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE' },
    ],
    [
      'a proxy refusal',
      new Error('Proxy response (407) !== 200 when HTTP Tunneling'),
      { kind: 'proxy', status: '407' },
    ],
    ['a connect time-out', coded('UND_ERR_CONNECT_TIMEOUT'), { kind: 'connect-timeout' }],
    ['no route', coded('EHOSTUNREACH'), { kind: 'no-route' }],
    ['an unknown code', coded('EWHATEVER'), { kind: 'other', code: 'EWHATEVER' }],
    ['no code at all', new Error('boom'), { kind: 'other', code: undefined }],
  ])('%s', (_, error, failure) => {
    expect(classifyNetworkFailure(error)).toEqual(failure);
  });
});

describe('unreachableMessage: the sentence of an UnreachableError', () => {
  const base = new URL('https://plants.example.com/v1');
  it.each<[NetworkFailure, string]>([
    [{ kind: 'timeout', timeoutMs: 1500 }, 'no answer from https://plants.example.com/v1 within 1.5 s'],
    [{ kind: 'refused' }, 'cannot reach https://plants.example.com/v1: connection refused'],
    [
      { kind: 'dns' },
      'cannot reach https://plants.example.com/v1: the host name plants.example.com could not be resolved (DNS)',
    ],
    [
      { kind: 'certificate', code: 'CERT_HAS_EXPIRED', names: [] },
      'cannot reach https://plants.example.com/v1: its TLS certificate has expired',
    ],
    [
      { kind: 'other', code: 'EWHATEVER' },
      'cannot reach https://plants.example.com/v1: the request failed (EWHATEVER)',
    ],
  ])('%j', (failure, message) => {
    expect(unreachableMessage(failure, base)).toBe(message);
  });
});
