import { describe, expect, it } from 'vitest';
import { invocationName, servesTokensInClear, serveTokens } from '../../../src/cli/actions/serve-setup.js';
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
