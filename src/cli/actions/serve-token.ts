import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { InvalidInputError } from '../../errors.js';
import { whyUnreadable } from '../../files/unreadable-file.js';
import { isBearerToken } from '../../schema/token.js';
import { isDatabaseServer, sqliteFile } from '../../server/stores/open-store.js';

/**
 * Where `plants serve` keeps the token it made up for a SQLite file: `<file>.token`, beside it
 * (as the file's -wal and -shm are), so that the store and its token go together and a restart
 * takes the same token. None for a store in memory (nothing outlives it) or on PostgreSQL (its
 * servers are set up with tokens of their own).
 */
export function keptTokenFile(database: string): string | undefined {
  if (isDatabaseServer(database)) return undefined;
  const file = sqliteFile(database);
  if (file === '' || file === ':memory:') return undefined;
  return `${file}.token`;
}

/**
 * The token kept in `file`, or undefined when there is none yet. A file that holds no valid
 * token is exit 2 with what to do, never quietly replaced: the users logged in with it would
 * be refused with no word why.
 */
export function readKeptToken(file: string): { token: string; warning?: string } | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new InvalidInputError(`${file}: cannot read the token kept there: ${whyUnreadable(error)}`, {
      cause: error,
    });
  }
  const token = text.replace(/\r?\n$/, '');
  if (!isBearerToken(token)) {
    throw new InvalidInputError(`${file} holds no valid token (the one plants serve made up for this store)`, {
      hints: ['Delete it to have a new one made up (logins with the old one are then refused), or give --token.'],
    });
  }
  const mode = statSync(file).mode & 0o777;
  const warning =
    (mode & 0o077) === 0
      ? undefined
      : `${file} can be read by others (mode ${mode.toString(8).padStart(4, '0')}): chmod 600 it`;
  return warning === undefined ? { token } : { token, warning };
}

/**
 * Writes the made-up token to `file`, mode 0600, unless one is there already (another serve
 * of the same file started first: its token is kept). Returns a line to tell the user when it
 * could not be kept; the server runs on either way, with this run's token.
 */
export function keepToken(file: string, token: string): string | undefined {
  let fd: number | undefined;
  let written = false;
  try {
    fd = openSync(file, 'wx', 0o600);
    writeSync(fd, `${token}\n`);
    written = true;
  } catch (error) {
    if (fd === undefined && (error as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
    return `the token could not be kept in ${file} (${whyUnreadable(error)}): the next start makes up a new one`;
  } finally {
    if (fd !== undefined) closeSync(fd);
    // Half a token is worse than none: the next start would refuse it.
    if (fd !== undefined && !written) unlinkSync(file);
  }
  return undefined;
}
