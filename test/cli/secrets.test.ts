import { describe, expect, it } from 'vitest';
import { secretWords } from '../../src/cli/secrets.js';

const known = { words: new Set(['help', 'list', 'environment']), flags: new Set(['token', 'base-url']) };

describe('secretWords', () => {
  it.each([
    [['help', 'environmen'], []],
    [['help', 'exit-code'], []],
    [['help', 'envir0nmentX'], ['envir0nmentX']],
    [['help', 'Qk3xZ9pLm2'], ['Qk3xZ9pLm2']],
    // A token flag's value, or a mistyped flag's, whatever its shape.
    [['list', '--token', 'lowercaseonly'], ['lowercaseonly']],
    [['list', '--token=lowercaseonly'], ['lowercaseonly']],
    [['list', '--tokne', 'lowercaseonly'], ['lowercaseonly']],
    [['list', '--tokne=lowercaseonly'], ['lowercaseonly']],
    // A known flag's value is echoed; a short word is no token.
    [['list', '--base-url', 'http://127.0.0.1:4010'], []],
    [['help', 'Ab3'], []],
  ])('%j: %j', (argv, secrets) => {
    expect(secretWords(argv, known)).toEqual(secrets);
  });
});
