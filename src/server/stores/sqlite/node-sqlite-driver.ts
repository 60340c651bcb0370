import { existsSync } from 'node:fs';
import {
  databaseClass,
  defineNodeSqliteDatabase,
  type NodeSqlite,
  type NodeSqliteParts,
  sqliteErrors,
  statementClass,
} from './node-sqlite-database.js';
import type { SqliteDriver } from './sqlite-driver-api.js';

const parts: NodeSqliteParts = { sqliteErrors, statementClass, databaseClass };

/** The same in the commit worker's thread, from the functions' source (an eval worker loads no file of ours). */
const workerPrelude = `const { Database } = (${defineNodeSqliteDatabase.toString()})(require('node:sqlite'), require('node:fs').existsSync, {
  sqliteErrors: ${sqliteErrors.toString()},
  statementClass: ${statementClass.toString()},
  databaseClass: ${databaseClass.toString()},
});
`;

let textChecked = false;

/**
 * The `node:sqlite` driver, for Node 24 and newer (the single executable's Node is 26). Node
 * 22's node:sqlite stores text exactly but reads it back only up to its first U+0000, which the
 * contract allows in a name or tag: there it is refused, said so, rather than losing characters.
 */
export function nodeSqliteDriver(): SqliteDriver {
  // Every Node plants runs on (22.19+) has node:sqlite.
  const sqlite = process.getBuiltinModule('node:sqlite') as NodeSqlite;
  if (!textChecked) {
    const db = new sqlite.DatabaseSync(':memory:');
    try {
      const row = db.prepare('SELECT char(0) AS text').get() as { text: string };
      if (row.text.length !== 1) {
        throw new Error(
          `node:sqlite of this Node (${process.version}) reads text only up to its first U+0000: plants' node:sqlite driver needs Node 24 or newer`,
        );
      }
    } finally {
      db.close();
    }
    textChecked = true;
  }
  return {
    name: 'node:sqlite',
    ...defineNodeSqliteDatabase(sqlite, existsSync, parts),
    workerPrelude,
  };
}
