import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClearTextTokenError } from '../../src/client/base-url.js';
import { ConfigStore } from '../../src/config/config-store.js';
import { KeyringTokenMissingError, resolveStore } from '../../src/config/settings.js';
import { InvalidInputError } from '../../src/errors.js';
import { makeTempDir } from '../helpers/cli.js';

/** The config file as the token's place: these tests never touch an OS keyring. */
const FILE = { insecureStorage: true };

// What a request may be sent to, with which token and which CA file: the config's to say.

let temp: ReturnType<typeof makeTempDir>;
let config: ConfigStore;
beforeEach(() => {
  temp = makeTempDir();
  config = ConfigStore.open({ dir: temp.dir });
});
afterEach(() => temp.remove());

const remote = 'https://plants.example.com';

describe('resolveStore', () => {
  it('refuses plain http to another machine unless insecure, before looking at the token', () => {
    const inputs = { flagBaseUrl: 'http://plants.example.com', envToken: 'Bearer x' };
    expect(() => resolveStore(inputs, config, {})).toThrow(ClearTextTokenError);
    expect(() => resolveStore(inputs, config, { insecure: true })).toThrow(/^PLANTS_TOKEN is not a valid bearer token/);
    expect(resolveStore({ flagBaseUrl: 'http://plants.example.com' }, config, { insecure: true }).baseUrl.origin).toBe(
      'http://plants.example.com',
    );
    expect(resolveStore({ flagBaseUrl: 'http://127.0.0.1:9' }, config, {}).token).toBeUndefined();
  });

  it('sends plain http to another machine when there is no token for it: nothing to keep from the network', () => {
    const store = resolveStore({ flagBaseUrl: 'http://no-such-host.invalid:4010' }, config, {});
    expect(store.baseUrl.origin).toBe('http://no-such-host.invalid:4010');
    expect(store.token).toBeUndefined();
  });

  it('a token the config keeps in the keyring, which the keyring no longer holds: refused before sending, saying so', () => {
    // As a login left it; the keyring's entry was removed by another program (nothing read back for it).
    writeFileSync(path.join(temp.dir, 'config.json'), JSON.stringify({ keyring: { [remote]: 'plants-account-1' } }));
    const kept = ConfigStore.open({ dir: temp.dir });
    let refused: unknown;
    try {
      resolveStore({ flagBaseUrl: remote }, kept, { storeArgs: ['--profile', 'b'] });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(KeyringTokenMissingError);
    expect((refused as KeyringTokenMissingError).message).toBe(
      `the token for ${remote} is kept in the OS keyring, but the keyring holds no entry for it (removed outside plants?)`,
    );
    expect((refused as KeyringTokenMissingError).exitCode).toBe(4);
    // PLANTS_TOKEN comes first, and needs no keyring.
    expect(resolveStore({ flagBaseUrl: remote, envToken: 'env-token' }, kept, {}).token?.source).toBe('environment');
  });

  it('takes PLANTS_TOKEN before the stored token, and refuses one that cannot be a bearer token, naming where it is', async () => {
    await config.setToken(remote, 'stored-token', FILE);
    const stored = resolveStore({ flagBaseUrl: remote }, config, {});
    expect(stored.token).toEqual({ value: 'stored-token', source: 'config' });
    expect(resolveStore({ flagBaseUrl: remote, envToken: 'env-token' }, config, {}).token).toEqual({
      value: 'env-token',
      source: 'environment',
    });
    expect(() => resolveStore({ flagBaseUrl: remote, envToken: 'has space' }, config, {})).toThrow(
      new InvalidInputError('PLANTS_TOKEN is not a valid bearer token: the token has white space in it'),
    );
    await config.setToken(remote, ' padded', FILE);
    expect(() => resolveStore({ flagBaseUrl: remote }, config, {})).toThrow(
      `the token stored for ${remote} is not a valid bearer token: the token has white space around it`,
    );
  });

  it('sends a token it is given (login tries a new one) as it is', () => {
    expect(resolveStore({ flagBaseUrl: remote, envToken: 'env-token' }, config, { token: 'new' }).token).toEqual({
      value: 'new',
      source: 'flag',
    });
  });

  it('trusts --ca-cert, else the CA file login kept for the origin, else Node alone', async () => {
    expect(resolveStore({ flagBaseUrl: remote }, config, {}).caCert).toBeUndefined();
    await config.setCaCert(remote, '/kept/ca.pem');
    expect(resolveStore({ flagBaseUrl: remote }, config, {}).caCert).toEqual({
      file: '/kept/ca.pem',
      where: `the CA certificate \`plants login --ca-cert\` kept for ${remote}`,
    });
    expect(resolveStore({ flagBaseUrl: remote }, config, { caCert: 'flag.pem' }).caCert).toEqual({
      file: 'flag.pem',
      where: '--ca-cert',
    });
    expect(resolveStore({ flagBaseUrl: 'https://other.example.com' }, config, {}).caCert).toBeUndefined();
  });
});
