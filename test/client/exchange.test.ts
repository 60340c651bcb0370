import { describe, expect, it } from 'vitest';
import { UnreachableError } from '../../src/client/errors.js';
import { exchange } from '../../src/client/exchange.js';
import { type Answer, SendError, type Transport } from '../../src/client/transport.js';

const baseUrl = new URL('http://127.0.0.1:4010');
const url = new URL('http://127.0.0.1:4010/plants');
const answer = (status: number, retryAfter?: string): Answer => ({
  status,
  contentType: 'application/json',
  text: '{}',
  retryAfter,
  link: undefined,
  sends: 1,
});
const noAnswer = (retryable: 'not-applied' | 'maybe-applied' | false, sent: boolean) =>
  new SendError(
    new UnreachableError('cannot reach', { baseUrl, failure: { kind: 'refused' } }),
    retryable,
    sent,
    sent ? 1 : 0,
  );

/** A transport that answers from a script, one outcome per send. */
function scripted(outcomes: (Answer | SendError)[]): Transport & { sends: number } {
  const fake = {
    sends: 0,
    send: async () => {
      const next = outcomes[fake.sends++];
      if (next === undefined) throw new Error('sent more often than scripted');
      if (next instanceof SendError) throw next;
      return next;
    },
    tlsPortInstead: async () => undefined,
  };
  return fake as unknown as Transport & { sends: number };
}

const policy = { attempts: 3, baseDelayMs: 1, maxDelayMs: 5 };

describe('exchange: the retry loop', () => {
  it('returns any answer, whatever its status, without sending again', async () => {
    const transport = scripted([answer(500)]);
    const done = await exchange(transport, { method: 'POST', url, body: '{}' }, policy);
    expect(done.answer.status).toBe(500);
    expect(done.attempts).toBe(1);
    expect(transport.sends).toBe(1);
  });

  it('sends again after a 503 with Retry-After, within the policy', async () => {
    const transport = scripted([answer(503, '0'), answer(200)]);
    const done = await exchange(transport, { method: 'POST', url, body: '{}' }, policy);
    expect(done.answer.status).toBe(200);
    expect(done.attempts).toBe(2);
    expect(done.mayHaveBeenApplied).toBe(false);
  });

  it('keeps a 503 whose Retry-After is longer than the policy waits', async () => {
    const done = await exchange(scripted([answer(503, '60')]), { method: 'GET', url }, policy);
    expect(done.answer.status).toBe(503);
  });

  it('sends again after a refused connection, and says when a drop may have applied it', async () => {
    const done = await exchange(
      scripted([noAnswer('not-applied', false), noAnswer('maybe-applied', true), answer(409)]),
      { method: 'POST', url, body: '{}' },
      policy,
    );
    expect(done.attempts).toBe(3);
    expect(done.mayHaveBeenApplied).toBe(true);
  });

  it('never sends a DELETE again after it may have been applied', async () => {
    const transport = scripted([noAnswer('maybe-applied', true), answer(204)]);
    const error = await exchange(transport, { method: 'DELETE', url }, policy).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UnreachableError);
    expect((error as UnreachableError).sentNoAnswer).toBe(true);
    expect(transport.sends).toBe(1);
  });

  it('gives up after the policy’s attempts with the last UnreachableError, counting them', async () => {
    const transport = scripted([noAnswer('not-applied', false), noAnswer('not-applied', false)]);
    const error = await exchange(transport, { method: 'GET', url }, { ...policy, attempts: 2 }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(UnreachableError);
    expect((error as UnreachableError).attempts).toBe(2);
    expect((error as UnreachableError).sentNoAnswer).toBe(false);
  });

  it('takes attempt 1 from the caller when it was already sent', async () => {
    const transport = scripted([answer(200)]);
    const done = await exchange(transport, { method: 'POST', url, body: '{}' }, policy, {
      error: noAnswer('not-applied', false),
    });
    expect(done.attempts).toBe(2);
    expect(transport.sends).toBe(1);
  });
});
