import { describe, expect, it } from 'vitest';
import type { BulkSummary } from '../../../src/bulk/bulk-add.js';
import { plain } from '../../../src/cli/render/colors.js';
import { renderBulkSummary } from '../../../src/cli/render/render-bulk.js';
import { UnreachableError } from '../../../src/client/errors.js';

const summary = (over: Partial<BulkSummary>): BulkSummary => ({
  records: 3,
  added: 0,
  confirmed: 0,
  existing: 0,
  conflicting: 0,
  rejected: 1,
  storedAsSent: 0,
  invalid: 2,
  unreachable: 0,
  unknown: 0,
  stopped: 'fatal',
  inputEnded: false,
  fatal: new UnreachableError('cannot reach http://127.0.0.1:1', {
    baseUrl: new URL('http://127.0.0.1:1'),
    failure: { kind: 'other', code: undefined },
  }),
  firstFailures: [],
  elapsedMs: 10,
  ...over,
});

describe('renderBulkSummary: how a stopped run ended', () => {
  it.each(['fatal', 'fail-fast'] as const)('%s before the end of the input: the rest was not sent', (stopped) => {
    const text = renderBulkSummary(summary({ stopped, inputEnded: false }), plain);
    expect(text).toContain('the rest was not sent');
    expect(text).toContain('of 3 read');
  });

  it.each(['fatal', 'fail-fast'] as const)(
    '%s once the whole input was read: nothing is said to be left unsent',
    (stopped) => {
      const text = renderBulkSummary(summary({ stopped, inputEnded: true }), plain);
      expect(text).not.toContain('the rest was not sent');
      expect(text).toContain('Added 0 of 3 plants');
    },
  );
});
