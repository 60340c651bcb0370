import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { invocationName, loginTarget, servesTokensInClear, serveTokens } from '../../../src/cli/actions/serve-setup.js';
import { readEnv } from '../../../src/cli/env.js';

describe('invocationName', () => {
  it.each([
    ['/usr/local/bin/plants', '/home/me', 'plants'],
    ['/home/me/plants-clone/bin/run.js', '/home/me/plants-clone', './bin/run.js'],
    ['/opt/plants/bin/run.js', '/home/me', '/opt/plants/bin/run.js'],
    [undefined, '/home/me', 'plants'],
  ])('%s from %s is %s', (script, cwd, name) => {
    expect(invocationName(script, cwd)).toBe(name);
  });
});

describe('serveTokens', () => {
  it('takes --token first, then PLANTS_TOKEN, else makes one up', () => {
    const env = readEnv({ PLANTS_TOKEN: 'from-env' });
    expect(serveTokens(['a', 'b'], env)).toEqual({ tokens: ['a', 'b'], generated: false });
    expect(serveTokens(undefined, env)).toEqual({ tokens: ['from-env'], generated: false });
    const made = serveTokens(undefined, readEnv({}));
    expect(made.generated).toBe(true);
    expect(made.tokens[0]).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(serveTokens(undefined, readEnv({})).tokens[0]).not.toBe(made.tokens[0]);
  });
});

describe('servesTokensInClear', () => {
  it('is true only for plain http on a non-loopback address', () => {
    expect(servesTokensInClear('0.0.0.0', false)).toBe(true);
    expect(servesTokensInClear('0.0.0.0', true)).toBe(false);
    expect(servesTokensInClear('127.0.0.1', false)).toBe(false);
    expect(servesTokensInClear('::1', false)).toBe(false);
  });
});

describe('loginTarget: what the banner tells a client to log in to', () => {
  const cert = path.resolve(import.meta.dirname, '../../server/fixtures/test-tls-cert.pem');

  it.each([
    ['http://127.0.0.1:4010', 'http://127.0.0.1:4010'],
    ['http://0.0.0.0:4021', 'http://127.0.0.1:4021'],
    ['http://[::]:4021', 'http://[::1]:4021'],
  ])('plain http on %s: %s', (url, client) => {
    expect(loginTarget(url, undefined)).toEqual({ url: client });
  });

  it.each([
    ['https://0.0.0.0:4021', 'https://127.0.0.1:4021'],
    ['https://localhost:4021', 'https://localhost:4021'],
    // The certificate (127.0.0.1, localhost) names neither: the first name it holds.
    ['https://[::]:4021', 'https://127.0.0.1:4021'],
    ['https://plants.internal:4021', 'https://127.0.0.1:4021'],
  ])('TLS with a certificate of its own on %s: %s, with --ca-cert', (url, client) => {
    expect(loginTarget(url, cert)).toEqual({ url: client, caCert: cert });
  });
});
