import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../src/errors.js';
import { seededRandom } from '../../../src/server/test-double/prng.js';
import { parseDelay, parseFault, parseFaults } from '../../../src/server/test-double/testing-options.js';

describe('serve --delay and --fault values', () => {
  it.each([
    ['0', { minMs: 0, maxMs: 0 }],
    ['250', { minMs: 250, maxMs: 250 }],
    ['100-300', { minMs: 100, maxMs: 300 }],
    ['5-5', { minMs: 5, maxMs: 5 }],
  ])('--delay %s', (text, range) => {
    expect(parseDelay(text)).toEqual(range);
  });

  it.each([
    ['-5', /^--delay -5: give milliseconds/],
    ['5-1', /^--delay 5-1: MIN is more than MAX \(give 1-5\)$/],
    ['1.5', /^--delay 1\.5: give milliseconds/],
    ['', /^--delay : give milliseconds/],
    ['10-', /^--delay 10-: give milliseconds/],
    ['600001', /^--delay 600001: at most 600000 ms/],
  ])('--delay %s is refused, naming the flag', (text, message) => {
    expect(() => parseDelay(text)).toThrow(InvalidInputError);
    expect(() => parseDelay(text)).toThrow(message);
  });

  it.each([
    ['503=0.3', { kind: '503', rate: 0.3 }],
    ['reset=1', { kind: 'reset', rate: 1 }],
    ['stall=0', { kind: 'stall', rate: 0 }],
    ['truncate=.25', { kind: 'truncate', rate: 0.25 }],
  ])('--fault %s', (text, fault) => {
    expect(parseFault(text)).toEqual(fault);
  });

  it.each([
    ['503=1.5', /^--fault 503=1\.5: RATE must be a fraction of plant requests from 0 to 1/],
    ['503=-0.1', /^--fault 503=-0\.1: RATE must be/],
    ['503=', /^--fault 503=: RATE must be/],
    ['503=1e-1', /^--fault 503=1e-1: RATE must be/],
    ['nope=0.1', /^--fault nope=0\.1: no fault kind "nope"; kinds: 503, reset, stall, truncate$/],
    ['503', /^--fault 503: give KIND=RATE/],
  ])('--fault %s is refused, naming the flag', (text, message) => {
    expect(() => parseFault(text)).toThrow(InvalidInputError);
    expect(() => parseFault(text)).toThrow(message);
  });

  it('takes each kind once, and rates that add up to 1 at most', () => {
    expect(parseFaults(['503=0.5', 'reset=0.5'])).toHaveLength(2);
    expect(() => parseFaults(['503=0.1', '503=0.2'])).toThrow(/^--fault 503 is given twice/);
    expect(() => parseFaults(['503=0.7', 'stall=0.4'])).toThrow(/^--fault: the rates add up to 1\.1, more than 1/);
  });
});

describe('the seeded generator of the faults', () => {
  it('gives the same sequence for the same seed, another for another, in [0, 1)', () => {
    const draws = (seed: number) => Array.from({ length: 1000 }, seededRandom(seed));
    expect(draws(42)).toEqual(draws(42));
    expect(draws(42)).not.toEqual(draws(43));
    for (const draw of draws(7)) {
      expect(draw).toBeGreaterThanOrEqual(0);
      expect(draw).toBeLessThan(1);
    }
    // Spread evenly enough that a rate means what it says: 0.3 of 10,000 draws within 3 points.
    const below = Array.from({ length: 10_000 }, seededRandom(1)).filter((draw) => draw < 0.3).length;
    expect(below).toBeGreaterThan(2700);
    expect(below).toBeLessThan(3300);
  });
});
