export const SNIFF_BYTES = 4096;

const READS_JSON = 'plants reads JSON text: a NewPlant object, a JSON array of them, or NDJSON (one per line)';

const UTF16 = {
  what: 'UTF-16 text (it starts with a UTF-16 byte-order mark)',
  first: 'convert it first: iconv -f UTF-16 -t UTF-8',
};

/** Leading bytes of formats that are never JSON text, and what to pipe each through first, if anything. */
const MAGIC: ReadonlyArray<{ bytes: readonly number[]; what: string; first?: string }> = [
  { bytes: [0x1f, 0x8b], what: 'gzip-compressed', first: 'decompress it first: gunzip -c' },
  { bytes: [0xff, 0xfe], ...UTF16 },
  { bytes: [0xfe, 0xff], ...UTF16 },
  { bytes: [0x50, 0x4b, 0x03, 0x04], what: 'a zip archive', first: 'extract it first: unzip -p' },
  { bytes: [0x42, 0x5a, 0x68], what: 'bzip2-compressed', first: 'decompress it first: bzip2 -dc' },
  { bytes: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], what: 'xz-compressed', first: 'decompress it first: xz -dc' },
  { bytes: [0x28, 0xb5, 0x2f, 0xfd], what: 'zstd-compressed', first: 'decompress it first: zstd -dc' },
  { bytes: [0x7f, 0x45, 0x4c, 0x46], what: 'a program (ELF), not text' },
];

/**
 * What the first bytes of an input show is certainly not JSON text: a binary format, a control
 * character text never holds (ESC aside; NUL is left to the record reader, which refuses a
 * first record that long), CSV, or prose. `source` names the file in what to do (`-`: stdin).
 */
export function sniffInput(head: Uint8Array, source: string): { what: string; todo: string } | undefined {
  const named = source === '-' ? 'FILE' : source;
  for (const { bytes, what, first } of MAGIC) {
    if (!bytes.every((byte, at) => head[at] === byte)) continue;
    return { what, todo: first === undefined ? READS_JSON : `${first} ${named} | plants add --file -` };
  }
  const look = head.subarray(0, SNIFF_BYTES);
  const control = look.findIndex(
    (byte) => (byte >= 0x01 && byte <= 0x08) || (byte >= 0x0e && byte <= 0x1f && byte !== 0x1b),
  );
  if (control !== -1) {
    return {
      what: `binary data, not text (a control byte 0x${(look[control] as number).toString(16).padStart(2, '0')} at byte ${control + 1})`,
      todo: READS_JSON,
    };
  }
  const text = Buffer.from(look).toString('latin1');
  const lead = /^\uFEFF?\s*/.exec(text)?.[0] ?? '';
  const [firstLine = '', ...rest] = text.slice(lead.length).split(/\r?\n/);
  if (firstLine === '' || firstLine.includes('\u0000') || /^[[{]/.test(firstLine) || isJson(firstLine))
    return undefined;
  if (/[,\t]/.test(firstLine)) return { what: 'CSV (comma- or tab-separated values), not JSON', todo: READS_JSON };
  // Prose: neither of the first two lines is JSON (the reader's test for NDJSON).
  const second = rest.slice(0, -1).find((line) => line.trim() !== '');
  if (second !== undefined && isJson(second)) return undefined;
  const line = (lead.match(/\n/g)?.length ?? 0) + 1;
  return { what: `not JSON (line ${line} is not a JSON value)`, todo: READS_JSON };
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
