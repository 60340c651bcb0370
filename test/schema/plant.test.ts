import { describe, expect, it } from 'vitest';
import { INT64_MAX, INT64_MIN } from '../../src/schema/int64.js';
import { InvalidPlantError } from '../../src/schema/invalid-plant-error.js';
import {
  ErrorBody,
  Plant,
  parseNewPlantJson,
  parsePlantIdText,
  storedPlantOfConflict,
} from '../../src/schema/plant.js';
import { isBearerToken } from '../../src/schema/token.js';

describe('NewPlant from JSON', () => {
  it.each([
    ['{"id":1,"name":"Fern"}', { id: 1n, name: 'Fern' }],
    ['{"id":1,"name":"Fern","tag":"herb"}', { id: 1n, name: 'Fern', tag: 'herb' }],
    ['{"id":9223372036854775807,"name":"Oak"}', { id: INT64_MAX, name: 'Oak' }],
    ['{"id":-9223372036854775808,"name":"Oak"}', { id: INT64_MIN, name: 'Oak' }],
    ['{"id":9007199254740993,"name":"Oak"}', { id: 9007199254740993n, name: 'Oak' }],
    ['{"id":0,"name":"x","tag":""}', { id: 0n, name: 'x', tag: '' }],
    ['{"id":2,"name":"Ivy","extra":true}', { id: 2n, name: 'Ivy' }],
  ])('accepts %s', (text, expected) => {
    expect(parseNewPlantJson(text)).toEqual(expected);
  });

  it.each([
    ['{"name":"Fern"}', 'id: is required'],
    [
      '{"id":9223372036854775808,"name":"Fern"}',
      'id: must be a whole number from -9223372036854775808 to 9223372036854775807',
    ],
    ['{"id":-9223372036854775809,"name":"Fern"}', 'id: must be a whole number'],
    [
      '{"id":1.5,"name":"Fern"}',
      'id: must be a whole number from -9223372036854775808 to 9223372036854775807 (got 1.5)',
    ],
    ['{"id":1.0,"name":"Fern"}', '(got 1.0)'],
    ['{"id":1e3,"name":"Fern"}', '(got 1e3)'],
    ['{"id":"1","name":"Fern"}', 'id: must be a JSON number, not a string (got "1")'],
    [
      '{"id":true,"name":"Fern"}',
      'id: must be a whole number from -9223372036854775808 to 9223372036854775807 (got boolean)',
    ],
    ['{"id":null,"name":"Fern"}', '(got null)'],
    ['{"id":1}', 'name: is required'],
    ['{"id":1,"name":""}', 'name: must not be empty'],
    ['{"id":1,"name":7}', 'name: must be a string'],
    ['{"id":1,"name":"x","tag":null}', 'tag: must be a string'],
    [`{"id":1,"name":"${'x'.repeat(1025)}"}`, 'name: must be at most 1024 characters'],
    ['{"id":1,"name":"\\ud800"}', 'name: must be valid Unicode'],
    ['[]', 'must be a JSON object'],
    ['"x"', 'must be a JSON object'],
    ['{"id":1,', 'not valid JSON'],
  ])('refuses %s naming the field', (text, message) => {
    const attempt = () => parseNewPlantJson(text);
    expect(attempt).toThrow(InvalidPlantError);
    expect(attempt).toThrow(message);
  });

  it('names every bad field at once', () => {
    expect(() => parseNewPlantJson('{"id":"a","name":5}')).toThrow(/id: .*; name: must be a string/);
  });
});

describe('ids typed by users', () => {
  it.each([
    ['1', 1n],
    ['9223372036854775807', INT64_MAX],
    ['-9223372036854775808', INT64_MIN],
  ])('reads %s exactly', (text, id) => {
    expect(parsePlantIdText(text)).toBe(id);
  });

  it.each(['9223372036854775808', '1.5', 'abc', '', '1e3', '0x10', '"1"', '99999999999999999999'])(
    'refuses %j',
    (text) => {
      expect(() => parsePlantIdText(text)).toThrow(InvalidPlantError);
    },
  );
});

describe('Plant and Error', () => {
  it('reads a Plant with or without id', () => {
    expect(Plant.parse({ name: 'Fern' })).toEqual({ name: 'Fern' });
    expect(Plant.parse({ id: 2n, name: 'Fern', tag: 'x' })).toEqual({ id: 2n, name: 'Fern', tag: 'x' });
    expect(Plant.safeParse({ tag: 'x' }).success).toBe(false);
  });

  it('reads an Error with an int32 code only', () => {
    expect(ErrorBody.parse({ error: 400, message: 'bad' })).toEqual({ error: 400, message: 'bad' });
    expect(ErrorBody.safeParse({ error: 2 ** 31, message: 'bad' }).success).toBe(false);
    expect(ErrorBody.safeParse({ error: 400 }).success).toBe(false);
  });
});

describe('the stored plant a 409 carries', () => {
  it('is read exactly, with its JSON on one line', () => {
    const raw =
      '{"error":409,"message":"a plant with id 9223372036854775807 already exists","plant":{"id":9223372036854775807,"name":"Fern","tag":"herb"}}';
    expect(storedPlantOfConflict(raw)).toEqual({
      plant: { id: 9223372036854775807n, name: 'Fern', tag: 'herb' },
      rawBody: '{"id":9223372036854775807,"name":"Fern","tag":"herb"}',
    });
  });

  it.each([
    ['the Error record alone (a seed store)', '{"error":409,"message":"a plant with id 1 already exists"}'],
    ['a plant without an id', '{"error":409,"message":"m","plant":{"name":"Fern"}}'],
    ['an id that is not int64', '{"error":409,"message":"m","plant":{"id":1.5,"name":"Fern"}}'],
    ['not JSON', '<html>"plant"</html>'],
    ['no body', undefined],
  ])('is undefined for %s', (_what, raw) => {
    expect(storedPlantOfConflict(raw)).toBeUndefined();
  });
});

describe('bearer token syntax (RFC 6750)', () => {
  it.each(['abc', 'A-Z.0_9~+/', 'dG9rZW4=', 'x==', 'a'.repeat(4096)])('accepts %s', (token) => {
    expect(isBearerToken(token)).toBe(true);
  });
  it.each(['', 'has space', 'tab\there', 'new\nline', '=abc', 'a=b', 'ünïcode', 'a'.repeat(4097)])(
    'refuses %j',
    (token) => {
      expect(isBearerToken(token)).toBe(false);
    },
  );
});
