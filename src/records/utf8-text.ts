import { isUtf8 } from 'node:buffer';

/**
 * Decodes UTF-8, each byte that is not part of a valid sequence made a lone low surrogate (U+DC80
 * to U+DCFF, as Python's `surrogateescape`), which valid UTF-8 never decodes to: a record holding
 * one is refused, where a decoder's U+FFFD would have been stored.
 */
export async function* decodeUtf8Strictly(chunks: AsyncIterable<Buffer | string>): AsyncGenerator<string> {
  let carry: Buffer | undefined;
  for await (const chunk of chunks) {
    let bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    if (carry !== undefined) {
      bytes = Buffer.concat([carry, bytes]);
      carry = undefined;
    }
    const cut = incompleteTail(bytes);
    if (cut < bytes.length) carry = Buffer.from(bytes.subarray(cut));
    const whole = bytes.subarray(0, cut);
    if (whole.length > 0) yield decode(whole);
  }
  if (carry !== undefined) yield decode(carry);
}

function decode(bytes: Buffer): string {
  return isUtf8(bytes) ? bytes.toString('utf8') : decodeMarkingInvalid(bytes);
}

/** 0 for a byte that cannot start a sequence. */
function sequenceLength(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

/** Where a sequence the chunk cuts starts (the chunk's length if none). */
function incompleteTail(bytes: Buffer): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const at = bytes.length - back;
    const byte = bytes[at] as number;
    if ((byte & 0xc0) === 0x80) continue;
    const length = sequenceLength(byte);
    return length > back ? at : bytes.length;
  }
  return bytes.length;
}

function decodeMarkingInvalid(bytes: Buffer): string {
  let text = '';
  let runStart = 0;
  let at = 0;
  while (at < bytes.length) {
    const length = sequenceLength(bytes[at] as number);
    if (length > 0 && at + length <= bytes.length && isUtf8(bytes.subarray(at, at + length))) {
      at += length;
      continue;
    }
    text += bytes.toString('utf8', runStart, at) + String.fromCharCode(0xdc00 + (bytes[at] as number));
    at++;
    runStart = at;
  }
  return text + bytes.toString('utf8', runStart, at);
}
