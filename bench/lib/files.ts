/** Files of a run: NDJSON inputs, fresh folders, the rows a store file holds. */
import { createWriteStream, mkdtempSync } from 'node:fs';
import path from 'node:path';
import { Database } from '../../src/server/stores/sqlite/sqlite-driver.js';
import { work } from './context.js';

export function freshDir(label: string): string {
  return mkdtempSync(path.join(work, `${label}-`));
}

/** `count` records, one NDJSON line each, ids from `firstId` up. */
export function writeNdjson(file: string, count: number, firstId: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const out = createWriteStream(file);
    out.once('error', reject);
    let id = firstId;
    const end = firstId + count;
    const write = () => {
      while (id < end) {
        let chunk = '';
        for (let i = 0; i < 1000 && id < end; i++, id++) chunk += `{"id":${id},"name":"plant ${id}","tag":"bench"}\n`;
        if (!out.write(chunk)) {
          out.once('drain', write);
          return;
        }
      }
      out.end(resolve);
    };
    write();
  });
}

export function countRows(db: string): number {
  const connection = new Database(db, { readonly: true, fileMustExist: true });
  try {
    return Number(connection.prepare('SELECT count(*) FROM plants').pluck().get());
  } finally {
    connection.close();
  }
}
