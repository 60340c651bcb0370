import { describe, expect, it } from 'vitest';
import { failureHints, loginCommand, refusedTokenHint } from '../../../src/cli/render/failure-hints.js';
import { ClearTextTokenError, CredentialsInUrlError, parseBaseUrl } from '../../../src/client/base-url.js';
import type { NetworkFailure } from '../../../src/client/errors.js';
import {
  AuthRejectedError,
  ConflictError,
  NoAnswerError,
  ResponseError,
  UnexpectedBodyError,
  UnreachableError,
} from '../../../src/client/errors.js';
import { KeyringTokenMissingError } from '../../../src/config/settings.js';
import { InvalidInputError } from '../../../src/errors.js';

const unreachable = (base: string, failure: NetworkFailure, storeArgs: string[] = []) =>
  new UnreachableError('cannot reach', { baseUrl: new URL(base), failure, storeArgs });

const answered = (status: number, base: string, retryAfter?: string) =>
  new ResponseError(`the server answered ${status}`, {
    status,
    body: { error: status, message: 'no' },
    baseUrl: new URL(base),
    retryAfter,
  });

describe('failureHints: an unreachable store', () => {
  it.each<[string, string, NetworkFailure, string[]]>([
    [
      'a time-out',
      'http://127.0.0.1:4010',
      { kind: 'timeout', timeoutMs: 300 },
      ['Raise the limit with --timeout SECONDS.'],
    ],
    [
      'the default store refused',
      'http://127.0.0.1:4010',
      { kind: 'refused' },
      ['Is the local store running? Start it with `plants serve`.'],
    ],
    [
      'another local port refused',
      'http://localhost:5000/v1',
      { kind: 'refused' },
      ['Is a store listening there? `plants serve --port 5000` starts one.'],
    ],
    [
      'an IPv6 loopback refused',
      'http://[::1]:4010',
      { kind: 'refused' },
      [
        'plants serve listens on 127.0.0.1 unless --host says otherwise: use http://127.0.0.1:4010, or start it with `plants serve --host ::1 --port 4010`.',
      ],
    ],
    ['a remote store refused', 'https://plants.example.com', { kind: 'refused' }, []],
    [
      'a host name unknown',
      'https://plants.invalid',
      { kind: 'dns' },
      ['Check the host in the base URL (--base-url, PLANTS_BASE_URL, or the default `plants status` shows).'],
    ],
    [
      'a TLS port asked for plain HTTP',
      'http://127.0.0.1:8443/v1',
      { kind: 'tls-port' },
      ['Use https://127.0.0.1:8443/v1'],
    ],
    [
      'a plain port asked for TLS',
      'https://127.0.0.1:4010',
      { kind: 'not-tls' },
      ['If it is a plain-HTTP store, try http://127.0.0.1:4010'],
    ],
    [
      'a certificate not trusted',
      'https://127.0.0.1:8443',
      { kind: 'certificate', code: 'DEPTH_ZERO_SELF_SIGNED_CERT', names: [] },
      [
        "Trust it with --ca-cert FILE (its certificate, or its authority's, as PEM); `plants login --ca-cert FILE` keeps it for this origin.",
      ],
    ],
    [
      'a certificate for other names',
      'https://127.0.0.1:8443',
      { kind: 'certificate', code: 'ERR_TLS_CERT_ALTNAME_INVALID', names: ['*.example.com', 'localhost', '::1'] },
      [
        'Its certificate names *.example.com, localhost, ::1, not 127.0.0.1: use one of those in the URL (https://localhost:8443), or give the store a certificate made for 127.0.0.1.',
      ],
    ],
    [
      'a certificate for an IPv6 address only',
      'https://localhost:8443',
      { kind: 'certificate', code: 'ERR_TLS_CERT_ALTNAME_INVALID', names: ['::1'] },
      [
        'Its certificate names ::1, not localhost: use one of those in the URL (https://[::1]:8443), or give the store a certificate made for localhost.',
      ],
    ],
    [
      'a certificate whose names are unknown',
      'https://[::1]:8443',
      { kind: 'certificate', code: 'ERR_TLS_CERT_ALTNAME_INVALID', names: [] },
      [
        "Its certificate's names do not include ::1: reach the store by a name its certificate holds, or give it a certificate made for ::1.",
      ],
    ],
    ['a reset', 'http://127.0.0.1:4010', { kind: 'closed' }, []],
    ['a proxy refusal', 'https://plants.example.com', { kind: 'proxy', status: '407' }, []],
    ['anything else', 'http://127.0.0.1:4010', { kind: 'other', code: 'EWHATEVER' }, []],
  ])('%s', (_, base, failure, hints) => {
    expect(failureHints(unreachable(base, failure))).toEqual(hints);
  });

  it('names nothing of a store for a run interrupted before an answer', () => {
    const error = new UnreachableError('interrupted before its answer arrived', { failure: { kind: 'interrupted' } });
    expect(failureHints(error)).toEqual([]);
  });
});

describe('failureHints: a plant sent with no answer', () => {
  it('says how to look for it at the same store, then why no answer came', () => {
    const cause = unreachable('http://127.0.0.1:4010', { kind: 'timeout', timeoutMs: 1000 }, [
      '--base-url',
      'http://127.0.0.1:4010',
      '--ca-cert',
      "my cert's.pem",
    ]);
    expect(failureHints(new NoAnswerError(7n, cause))).toEqual([
      "`plants get 7 --base-url http://127.0.0.1:4010 --ca-cert 'my cert'\\''s.pem'` shows whether it is in the store.",
      'Raise the limit with --timeout SECONDS.',
    ]);
  });

  it('says when the store cannot be read back', () => {
    const cause = unreachable('https://plants.example.com', { kind: 'closed' });
    expect(failureHints(new NoAnswerError(-1n, cause, { noReadBack: true }))).toEqual([
      '`plants get -1` shows whether it is in the store.',
      'The store cannot be read back (no GET /plants/{id}).',
    ]);
  });
});

describe('failureHints: a refused token', () => {
  const refused = (base: string, tokenSource: 'environment' | 'config' | undefined, status: 401 | 403 = 401) =>
    new AuthRejectedError('the server answered 401', {
      status,
      body: { error: status, message: 'no' },
      baseUrl: new URL(base),
      tokenSource,
    });

  it.each<[string, string, 'environment' | 'config' | undefined, 401 | 403, string]>([
    [
      'from PLANTS_TOKEN',
      'http://127.0.0.1:4010',
      'environment',
      401,
      "The token sent was PLANTS_TOKEN's (it comes before any stored token): set it to a valid token, or unset it to use the one `plants login` stores.",
    ],
    [
      'none sent',
      'https://plants.example.com',
      undefined,
      401,
      'No token is stored for https://plants.example.com: run `plants login --base-url https://plants.example.com` or set PLANTS_TOKEN.',
    ],
    [
      'a stored one, on this machine',
      'http://127.0.0.1:5000',
      'config',
      401,
      'This store may have started with a new token since the login (plants serve makes one up each start with --memory, else keeps it beside its file, as <file>.token): its banner shows the token, and `plants login --base-url http://127.0.0.1:5000 --with-token` stores it.',
    ],
    [
      'a stored one, forbidden',
      'http://127.0.0.1:4010',
      'config',
      403,
      'Check the token: `plants login` stores a new one.',
    ],
  ])('%s', (_, base, source, status, hint) => {
    expect(failureHints(refused(base, source, status))).toEqual([hint]);
    expect(refusedTokenHint(new URL(base), source, status)).toBe(hint);
  });

  it('names the base URL in the login only when it is not the default', () => {
    expect(loginCommand(new URL('http://127.0.0.1:4010'))).toBe('plants login');
    expect(loginCommand(new URL('http://127.0.0.1:4010/v1'))).toBe('plants login --base-url http://127.0.0.1:4010/v1');
  });
});

describe('failureHints: an answer that is no success', () => {
  it('says when a busy store asks to come back', () => {
    expect(failureHints(answered(503, 'http://127.0.0.1:4010', '30'))).toEqual([
      'The store is unavailable for now (503); it asks to wait 30 s before trying again (Retry-After).',
    ]);
    expect(failureHints(answered(429, 'http://127.0.0.1:4010'))).toEqual(['The store is busy (429); try again later.']);
  });

  it('after retries, says how many tries were made over how long', () => {
    const error = answered(503, 'http://127.0.0.1:4010', '1');
    error.attempts = 3;
    error.triedForMs = 2049;
    expect(failureHints(error)).toEqual([
      'The store is unavailable for now (503): tried 3 times over 2.0 s; --retries N tries more often, or try again later.',
    ]);
  });

  it.each([400, 404, 405])('says to drop a base URL ending in /plants on a %i', (status) => {
    expect(failureHints(answered(status, 'http://127.0.0.1:4010/plants'))).toEqual([
      'The base URL ends in /plants, which plants adds itself (this asked for /plants/plants…): drop it, and use http://127.0.0.1:4010',
    ]);
  });

  it('says nothing more of other statuses, nor of a body that is not a Plant', () => {
    expect(failureHints(answered(500, 'http://127.0.0.1:4010/plants'))).toEqual([]);
    expect(failureHints(answered(409, 'http://127.0.0.1:4010'))).toEqual([]);
    const notAPlant = new UnexpectedBodyError({
      status: 200,
      expected: 'a Plant',
      received: 'an empty body instead of a Plant',
      baseUrl: new URL('http://127.0.0.1:4010'),
    });
    expect(failureHints(notAPlant)).toEqual([]);
  });

  it('shows both versions of a conflict', () => {
    const conflict = new ConflictError('a plant with id 1 is stored with other data', {
      body: { error: 409, message: 'differs' },
      sentPlant: '{"id":1,"name":"Fern"}',
      storedPlant: '{"id":1,"name":"Moss"}',
      attempts: 1,
    });
    expect(failureHints(conflict)).toEqual(['stored: {"id":1,"name":"Moss"}', 'sent:   {"id":1,"name":"Fern"}']);
  });
});

describe('failureHints: a token that would go in clear text', () => {
  it('names --insecure', () => {
    expect(failureHints(new ClearTextTokenError('http://plants.example.com'))).toEqual([
      'Pass --insecure to send it over plain http anyway (anyone on the network can read it).',
    ]);
  });
});

describe('failureHints: credentials in a base URL', () => {
  it('names plants login, and the URL is not repeated', () => {
    let thrown: unknown;
    try {
      parseBaseUrl('http://me:secret-password@127.0.0.1:4010');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(CredentialsInUrlError);
    expect((thrown as CredentialsInUrlError).message).not.toContain('secret-password');
    expect(failureHints(thrown as CredentialsInUrlError)).toEqual([
      'Keep the token with `plants login` (or PLANTS_TOKEN) instead.',
    ]);
  });
});

describe('failureHints: any other failure', () => {
  it('keeps the hints it was made with', () => {
    expect(failureHints(new InvalidInputError('bad', { hints: ['Try this.'] }))).toEqual(['Try this.']);
  });
});

describe('a token missing from the keyring', () => {
  it('says how to store it again, for the profile and store the command named', () => {
    const error = new KeyringTokenMissingError(new URL('https://plants.example.com'), [
      '--profile',
      'b',
      '--base-url',
      'https://plants.example.com',
    ]);
    expect(failureHints(error)).toEqual([
      '`plants login --base-url https://plants.example.com --profile b` stores it again.',
    ]);
  });
});
