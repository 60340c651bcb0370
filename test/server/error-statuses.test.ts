import { describe, expect, it } from 'vitest';
import { httpErrorOf } from '../../src/server/app.js';
import { ConflictError, HttpError } from '../../src/server/errors.js';
import { StoreOutcomeUnknownError } from '../../src/server/stores/postgres/postgres-plant-store.js';
import { NoPrimaryError } from '../../src/server/stores/postgres/primary-pool.js';
import {
  DatabaseReplacedError,
  StorageFullError,
  StoreClosedError,
  StoreUnavailableError,
} from '../../src/server/stores/store-errors.js';

// Stores throw what happened; the app alone turns it into a status and headers.
describe('the status of each failure', () => {
  it.each([
    [new StoreUnavailableError(), 503, { 'retry-after': '1' }],
    [new NoPrimaryError('every host is a standby'), 503, { 'retry-after': '2' }],
    [new StoreClosedError(), 503, { 'retry-after': '1' }],
    [new StoreOutcomeUnknownError(new Error('cut')), 503, {}],
    [new StorageFullError(), 507, {}],
    [new DatabaseReplacedError('/tmp/plants.db'), 500, {}],
    [new ConflictError('a plant with id 1 already exists'), 409, {}],
  ])('%s: %i', (error, status, headers) => {
    const answer = httpErrorOf(error);
    expect([answer.status, answer.headers]).toEqual([status, headers]);
    if (!(error instanceof StoreClosedError)) expect(answer.message).toBe(error.message);
  });

  it('tells nothing of a failure that is not one of ours: 500', () => {
    const answer = httpErrorOf(new TypeError('x is undefined'));
    expect(answer).toBeInstanceOf(HttpError);
    expect([answer.status, answer.message]).toEqual([500, 'internal server error']);
  });
});
