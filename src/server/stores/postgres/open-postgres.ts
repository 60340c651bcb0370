import { DatabaseConnectError, DatabaseOpenError } from '../store-errors.js';
import { describeConnection, describeHost, type PostgresConnection } from './connection-settings.js';
import { isTransientPostgresError, sqlState } from './postgres-errors.js';
import { migratePostgres, SchemaTooNewError } from './postgres-migrations.js';
import { type Lease, NoPrimaryAtStartError, PrimaryPool, type PrimaryPoolOptions } from './primary-pool.js';

/** Connects to the server written to and migrates the schema; a failure's message never holds the password. */
export async function openPostgres(options: PrimaryPoolOptions): Promise<PrimaryPool> {
  const { connection } = options;
  let primary: PrimaryPool;
  try {
    primary = await PrimaryPool.open(options);
  } catch (error) {
    if (error instanceof NoPrimaryAtStartError) throw describeNoPrimary(error, connection);
    throw error;
  }
  let lease: Lease;
  try {
    lease = await primary.connect();
  } catch (error) {
    await primary.close().catch(() => undefined);
    throw describeConnectFailure(error, connection);
  }
  const where = describeConnection(connection);
  try {
    await migratePostgres(lease.client);
  } catch (error) {
    lease.release(error);
    await primary.close().catch(() => undefined);
    if (error instanceof SchemaTooNewError) {
      throw new DatabaseOpenError(`PostgreSQL at ${where}: ${error.message}; refusing to use it`, {
        database: where,
        hints: ['Upgrade plants, or point it at another database.'],
      });
    }
    throw new DatabaseConnectError(
      `cannot set up the plants schema on PostgreSQL at ${where}: ${oneLine(error, connection)}`,
      { database: where, unreachable: isTransientPostgresError(error), cause: error },
    );
  }
  lease.release();
  return primary;
}

function describeConnectFailure(error: unknown, connection: PostgresConnection): DatabaseConnectError {
  const where = `PostgreSQL at ${describeConnection(connection)}`;
  const make = (why: string, unreachable: boolean, hints: readonly string[] = []) =>
    new DatabaseConnectError(`cannot use ${where}: ${why}`, {
      database: describeConnection(connection),
      unreachable,
      cause: error,
      hints,
    });
  const state = sqlState(error);
  const code = (error as { code?: unknown } | undefined)?.code;
  switch (state ?? code) {
    case '28P01':
      return make(`password authentication failed for user ${connection.user}`, false, [
        'Check the password in the URL or PGPASSWORD.',
      ]);
    case '28000':
      return make(`user ${connection.user} is not allowed to connect (${oneLine(error, connection)})`, false);
    case '3D000':
      return make('the database does not exist', false, [
        `Create it first, e.g. createdb -h ${connection.host} -p ${connection.port} ${connection.database}`,
      ]);
    case 'ECONNREFUSED':
      return make('connection refused (is PostgreSQL running there?)', true);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return make('the host name does not resolve', true);
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return make('the server cannot be reached (timed out)', true);
    default:
      // Closed before any answer (pg's own code-less message): most often not PostgreSQL at all.
      if (error instanceof Error && /^Connection terminated unexpectedly$/.test(error.message)) {
        return make('the server there closed the connection before answering (is it PostgreSQL?)', true);
      }
      return make(oneLine(error, connection), isTransientPostgresError(error));
  }
}

function describeNoPrimary(error: NoPrimaryAtStartError, connection: PostgresConnection): DatabaseConnectError {
  const refused = error.probes.find((probe) => probe.role === 'refused');
  if (refused !== undefined) {
    return describeConnectFailure(refused.error, {
      ...connection,
      host: refused.address.host,
      port: refused.address.port,
      hosts: [refused.address],
    });
  }
  const where = describeConnection(connection);
  const allDown = error.probes.every((probe) => probe.role === 'unreachable');
  return new DatabaseConnectError(`cannot use PostgreSQL at ${where}: ${oneLine(error, connection)}`, {
    database: where,
    unreachable: true,
    cause: error,
    hints: allDown
      ? ['Is PostgreSQL running there?']
      : [
          `serve writes only to a server that takes writes, and never to a former primary; found: ${error.probes.map((probe) => `${describeHost(probe.address)} ${probe.role}`).join(', ')}`,
        ],
  });
}

/** The password cut out should a driver ever include it. */
function oneLine(error: unknown, connection: PostgresConnection): string {
  let text = (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim();
  if (error instanceof AggregateError && text === '') text = error.errors.map((e) => oneLine(e, connection)).join('; ');
  if (connection.password !== undefined && connection.password !== '')
    text = text.split(connection.password).join('***');
  return text || 'unknown error';
}
