import { type ChildProcess, spawn } from 'node:child_process';
import { driverPath } from '../../src/server/stores/sqlite/sqlite-driver.js';
import { projectRoot } from './cli.js';

/**
 * Another process holding a lock on a SQLite file, as a second program would: it opens `file`
 * (creating it), takes the lock with `statement` and keeps it until released. Resolves once
 * the lock is held.
 */
export async function holdSqliteLock(
  file: string,
  statement: 'BEGIN EXCLUSIVE' | 'BEGIN IMMEDIATE',
  options: { wal?: boolean } = {},
): Promise<{ release(): Promise<void> }> {
  const script = `
    const Database = require(${JSON.stringify(driverPath)});
    const db = new Database(${JSON.stringify(file)});
    ${options.wal === true ? "db.pragma('journal_mode = WAL');" : ''}
    db.exec('CREATE TABLE IF NOT EXISTS lock_holder (x)');
    db.exec(${JSON.stringify(statement)});
    db.exec('INSERT INTO lock_holder VALUES (1)');
    process.stdout.write('locked\\n');
    setInterval(() => {}, 1000);
  `;
  const child: ChildProcess = spawn(process.execPath, ['-e', script], {
    cwd: projectRoot,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('locked')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the lock holder exited with ${code}`)));
  });
  return {
    release: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}
