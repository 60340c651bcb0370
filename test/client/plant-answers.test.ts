import { describe, expect, it } from 'vitest';
import {
  AuthRejectedError,
  CrossOriginPageError,
  ResponseError,
  UnexpectedBodyError,
} from '../../src/client/errors.js';
import { errorOf, plantOf, plantPageOf, storedPlantOf } from '../../src/client/plant-client.js';
import type { Answer } from '../../src/client/transport.js';

const baseUrl = new URL('http://127.0.0.1:4010');
const source = { baseUrl, tokenSource: 'config' as const };
const answer = (status: number, text: string, over: Partial<Answer> = {}): Answer => ({
  status,
  contentType: 'application/json',
  text,
  retryAfter: undefined,
  link: undefined,
  sends: 1,
  ...over,
});

describe('errorOf: the error an answer stands for', () => {
  it('keeps the server’s Error and its exact text', () => {
    const error = errorOf(answer(400, '{"error":400,"message":"name: is required"}'), source);
    expect(error).toBeInstanceOf(ResponseError);
    expect(error.message).toBe('the server answered 400: name: is required');
    expect(error.body).toEqual({ error: 400, message: 'name: is required' });
    expect(error.rawBody).toBe('{"error":400,"message":"name: is required"}');
    expect(error.baseUrl).toBe(baseUrl);
  });

  it('reads a problem+json', () => {
    const error = errorOf(
      answer(400, '{"title":"Bad","detail":"no name"}', { contentType: 'application/problem+json' }),
      source,
    );
    expect(error.message).toBe('the server answered 400: Bad: no name');
    expect(error.body).toEqual({ error: 400, message: 'Bad: no name' });
  });

  it('describes a body that is no Error, and passes no raw text for it', () => {
    const error = errorOf(answer(502, '<html>Bad gateway</html>', { contentType: 'text/html' }), source);
    expect(error.message).toBe(
      'the server answered 502 with a text/html body instead of an Error: <html>Bad gateway</html>',
    );
    expect(error.rawBody).toBeUndefined();
  });

  it('carries Retry-After for the caller', () => {
    expect(errorOf(answer(503, '', { retryAfter: '5' }), source).retryAfter).toBe('5');
  });

  it.each([401, 403] as const)(
    'makes a %i an AuthRejectedError (exit 4) naming where the token came from',
    (status) => {
      const error = errorOf(answer(status, `{"error":${status},"message":"no"}`), {
        baseUrl,
        tokenSource: 'environment',
      }) as AuthRejectedError;
      expect(error).toBeInstanceOf(AuthRejectedError);
      expect(error.exitCode).toBe(4);
      expect(error.tokenSource).toBe('environment');
      expect(error.status).toBe(status);
    },
  );
});

describe('plantOf, storedPlantOf, plantPageOf: a success read as what was asked for', () => {
  it('reads a Plant, keeping its exact text', () => {
    expect(plantOf(answer(201, '{"id":1,"name":"Fern"}'), source)).toEqual({
      status: 201,
      plant: { id: 1n, name: 'Fern' },
      rawBody: '{"id":1,"name":"Fern"}',
    });
    expect(storedPlantOf(answer(200, '{"id":1,"name":"Fern"}'), source).plant).toEqual({ id: 1n, name: 'Fern' });
  });

  it.each([
    ['', 'an empty body instead of a Plant'],
    ['{"nome":"Fern"}', 'JSON that is not a Plant: {"nome":"Fern"}'],
    ['{"name":"Fe', 'a body that is not valid JSON (possibly truncated) instead of a Plant'],
  ])('refuses %j as UnexpectedBodyError', (text, received) => {
    let caught: unknown;
    try {
      plantOf(answer(200, text), source);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(UnexpectedBodyError);
    expect((caught as UnexpectedBodyError).received).toBe(received);
    expect((caught as UnexpectedBodyError).message).toBe(`the server answered 200 but ${received}`);
    expect((caught as UnexpectedBodyError).exitCode).toBe(1);
  });

  it('reads a page and the next one’s URL from its Link header', () => {
    const url = new URL('http://127.0.0.1:4010/plants?limit=1');
    const page = plantPageOf(
      answer(200, '[{"id":1,"name":"Fern"}]', { link: '</plants?limit=1&after=1>; rel="next"' }),
      url,
      url.origin,
      source,
    );
    expect(page.plants).toEqual([{ id: 1n, name: 'Fern' }]);
    expect(page.next?.href).toBe('http://127.0.0.1:4010/plants?limit=1&after=1');
  });

  it('refuses a page that is not a list, and a next page on another origin', () => {
    const url = new URL('http://127.0.0.1:4010/plants');
    expect(() => plantPageOf(answer(200, '{}'), url, url.origin, source)).toThrow(UnexpectedBodyError);
    expect(() =>
      plantPageOf(answer(200, '[]', { link: '<http://evil.example/plants>; rel="next"' }), url, url.origin, source),
    ).toThrow(CrossOriginPageError);
  });
});
