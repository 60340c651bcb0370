import { describe, expect, it } from 'vitest';
import { decodeUtf8Strictly } from '../../src/records/utf8-text.js';

async function decode(bytes: Buffer, cuts: number[]): Promise<string> {
  async function* chunks(): AsyncGenerator<Buffer> {
    let from = 0;
    for (const cut of [...cuts, bytes.length]) {
      yield bytes.subarray(from, cut);
      from = cut;
    }
  }
  let text = '';
  for await (const part of decodeUtf8Strictly(chunks())) text += part;
  return text;
}

const lone = /(?<![\uD800-\uDBFF])[\uDC80-\uDCFF]/;

describe('decodeUtf8Strictly', () => {
  const text = 'a é € 𝄞 \ufffd z';
  const bytes = Buffer.from(text, 'utf8');

  it('decodes valid UTF-8 as it is, however the chunks cut its sequences', async () => {
    for (let cut = 0; cut <= bytes.length; cut++) {
      expect(await decode(bytes, [cut])).toBe(text);
      for (let second = cut; second <= bytes.length; second++) expect(await decode(bytes, [cut, second])).toBe(text);
    }
  });

  it.each([
    ['Latin-1', Buffer.from([0x43, 0x61, 0x66, 0xe9, 0x22])],
    ['a lone continuation byte', Buffer.from([0x61, 0x80, 0x62])],
    ['an overlong encoding', Buffer.from([0xc0, 0xaf])],
    ['an encoded surrogate', Buffer.from([0xed, 0xa0, 0x80])],
    ['a sequence cut at the end', Buffer.from([0x61, 0xe2, 0x82])],
    ['0xff', Buffer.from([0xff])],
  ])('marks %s with a lone surrogate, never U+FFFD, however it is cut', async (_name, invalid) => {
    for (let cut = 0; cut <= invalid.length; cut++) {
      const decoded = await decode(Buffer.concat([bytes, invalid, bytes]), [bytes.length + cut]);
      expect(decoded.startsWith(text)).toBe(true);
      expect(decoded.endsWith(text)).toBe(true);
      expect(lone.test(decoded)).toBe(true);
      expect(decoded.isWellFormed()).toBe(false);
    }
  });
});
