import { describe, expect, it } from 'vitest';
import { JqFilter } from '../../../src/cli/render/jq-filter.js';
import { InvalidInputError } from '../../../src/errors.js';

// --jq's program, jq 1.8 in WebAssembly, over JSON text as plants prints it.

const EXTREMES = ['9007199254740993', '-9007199254740993', '9223372036854775807', '-9223372036854775807'];
const plant = (id: string, name = 'Fern', tag = 'herb') => `{"id":${id},"name":${JSON.stringify(name)},"tag":"${tag}"}`;

describe('JqFilter', () => {
  it.each(EXTREMES)('keeps every digit of %s through .id, select(.id == …) and select(.tag == …) | .id', async (id) => {
    expect((await JqFilter.compile('.id')).run([plant(id)])).toEqual({ lines: [id], stderr: '' });
    expect((await JqFilter.compile(`select(.id == ${id})`)).run([plant('1'), plant(id)]).lines).toEqual([plant(id)]);
    const herbs = await JqFilter.compile('select(.tag == "herb") | .id');
    expect(herbs.run([plant('1', 'Oak', 'tree'), plant(id)]).lines).toEqual([id]);
  });

  it('prints strings raw (every character kept), anything else as compact JSON, one a line', async () => {
    const filter = await JqFilter.compile('.name, .tag, {id}, [.id], null, true');
    expect(filter.run([plant('9223372036854775807', '  Boston "Fern"\tx ')]).lines).toEqual([
      '  Boston "Fern"\tx ',
      'herb',
      '{"id":9223372036854775807}',
      '[9223372036854775807]',
      'null',
      'true',
    ]);
  });

  it('runs the full jq language: definitions, reduce, paths, formats, a comment on the last line', async () => {
    const filter = await JqFilter.compile(
      'def twice: [., .]; (.name | twice) as $n | [$n[0], ([paths] | length), reduce (.id, 2) as $x (0; . + $x), @base64 "\\(.tag)"] # comment',
    );
    expect(filter.run([plant('1')]).lines).toEqual(['["Fern",3,3,"aGVyYg=="]']);
  });

  it.each([
    [
      '.[',
      /^--jq: jq: error: syntax error, unexpected end of file at <top-level>, line 1, column 2; jq: 1 compile error$/,
    ],
    ['foo', /^--jq: jq: error: foo\/0 is not defined at <top-level>, line 1, column 1; jq: 1 compile error$/],
    ['', /^--jq: jq: error: Top-level program not given/],
  ])('refuses %j, which jq cannot compile, with jq’s own message on one line (exit 2)', async (expression, message) => {
    const refused = await JqFilter.compile(expression).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(InvalidInputError);
    expect((refused as InvalidInputError).exitCode).toBe(2);
    expect((refused as InvalidInputError).message).toMatch(message);
  });

  it('stops at the first value it fails on, naming its line, with what came before it', async () => {
    const filter = await JqFilter.compile('.id, .name + 1');
    // A value may span lines: the second starts on line 4 of the output.
    const output = filter.run(['{\n"id":1,\n"name":1}', '{"id":2,"name":"Ivy"}', '{"id":3,"name":3}']);
    expect(output.lines).toEqual(['1', '2', '2']);
    expect(output.error?.message).toBe('--jq: jq: error (at line 4): string ("Ivy") and number (1) cannot be added');
    expect(output.error?.exitCode).toBe(2);
  });

  it('counts lines across runs, and says an error that is not a string as jq does', async () => {
    const filter = await JqFilter.compile('if .id == 3 then error({id}) else .id end');
    expect(filter.run([plant('1'), plant('2')]).lines).toEqual(['1', '2']);
    expect(filter.run([plant('3')]).error?.message).toBe('--jq: jq: error (at line 3): (not a string): {"id":3}');
    const halted = (await JqFilter.compile('"stop" | halt_error')).run([plant('1')]);
    expect(halted.error?.message).toBe('--jq: jq: error (at line 1): stop');
  });

  it('hands on what jq writes to stderr (debug)', async () => {
    expect((await JqFilter.compile('.id | debug')).run([plant('7')])).toEqual({ lines: ['7'], stderr: '["DEBUG:",7]' });
  });
});
