import { describe, expect, it } from 'vitest';
import { httpErrorOf } from '../../src/server/app.js';
import { ConflictError, HttpError } from '../../src/server/errors.js';
import { AddOutcomeUnknownError } from '../../src/server/stores/postgres/postgres-plant-store.js';
import { NoPrimaryError } from '../../src/server/stores/postgres/primary-pool.js';
import {
  CommitInterruptedError,
  DatabaseReplacedError,
  OutcomeUnknownError,
  StorageFullError,
  StoreClosedError,
  StoreUnavailableError,
} from '../../src/server/stores/store-errors.js';

// Stores throw what happened; the app alone turns it into a status and headers.
describe('the status of each failure', () => {
  // The Error's `outcome` is "unknown" exactly where the change may have been made (issue 42);
  // those answers never carry Retry-After, whose "send it again" is for a request that changed nothing.
  it.each([
    [new StoreUnavailableError(), 503, { 'retry-after': '1' }, undefined],
    [new NoPrimaryError('every host is a standby'), 503, { 'retry-after': '2' }, undefined],
    [new StoreClosedError(), 503, { 'retry-after': '1' }, undefined],
    [new AddOutcomeUnknownError(new Error('cut')), 503, {}, 'unknown'],
    [new OutcomeUnknownError('the database went away while deleting this plant'), 503, {}, 'unknown'],
    [new CommitInterruptedError('the disk failed while storing this plant'), 500, {}, 'unknown'],
    [new StorageFullError(), 507, {}, undefined],
    [new DatabaseReplacedError('/tmp/plants.db'), 500, {}, undefined],
    [new ConflictError('a plant with id 1 already exists'), 409, {}, undefined],
  ])('%s: %i', (error, status, headers, outcome) => {
    const answer = httpErrorOf(error);
    expect([answer.status, answer.headers, answer.outcome]).toEqual([status, headers, outcome]);
    if (!(error instanceof StoreClosedError)) expect(answer.message).toBe(error.message);
  });

  it('tells nothing of a failure that is not one of ours: 500', () => {
    const answer = httpErrorOf(new TypeError('x is undefined'));
    expect(answer).toBeInstanceOf(HttpError);
    expect([answer.status, answer.message]).toEqual([500, 'internal server error']);
  });
});
