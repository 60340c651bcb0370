import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { InvalidInputError } from '../../errors.js';
import { whyUnreadable } from '../../files/unreadable-file.js';
import { isBearerToken } from '../../schema/token.js';
import { isDatabaseServer, sqliteFile } from '../../server/stores/open-store.js';

/**
 * Where `plants serve` keeps the token it made up for a SQLite file, beside it so that a restart
 * takes the same one. None in memory or on PostgreSQL (set up with tokens of its own).
 */
export function keptTokenFile(database: string): string | undefined {
  if (isDatabaseServer(database)) return undefined;
  const file = sqliteFile(database);
  if (file === '' || file === ':memory:') return undefined;
  return `${file}.token`;
}

/** The token kept in `file`; one not valid is never quietly replaced: its users would be refused with no word why. */
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

/** Writes the token to `file` unless another serve of it did first; returns a warning when it could not. */
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
