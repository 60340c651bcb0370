import { describe, expect, it } from 'vitest';
import {
  checksServerRole,
  describeConnection,
  redactUrl,
  resolvePostgresConnection,
} from '../../../../src/server/stores/postgres/connection-settings.js';
import { DatabaseConnectError } from '../../../../src/server/stores/store-errors.js';

describe('resolvePostgresConnection', () => {
  it('reads user, password, host, port, database and sslmode from the URL', () => {
    const connection = resolvePostgresConnection('postgresql://ann:s%40cret@db.example:6543/garden?sslmode=require');
    expect(connection).toMatchObject({
      host: 'db.example',
      port: 6543,
      user: 'ann',
      password: 's@cret',
      database: 'garden',
      sslmode: 'require',
      ssl: { rejectUnauthorized: false },
    });
    expect(describeConnection(connection)).toBe('db.example:6543, database garden');
  });

  it('takes what the URL leaves out from PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE, PGSSLMODE', () => {
    const env = {
      host: 'pg.local',
      port: '5433',
      user: 'bob',
      password: 'pw',
      database: 'plants',
      sslmode: 'verify-full',
    };
    expect(resolvePostgresConnection('postgres://', env)).toMatchObject({
      host: 'pg.local',
      port: 5433,
      user: 'bob',
      password: 'pw',
      database: 'plants',
      sslmode: 'verify-full',
      ssl: { rejectUnauthorized: true, servername: 'pg.local' },
    });
    // The URL wins over the environment.
    expect(resolvePostgresConnection('postgres://carl@other:1/db?sslmode=disable', env)).toMatchObject({
      host: 'other',
      port: 1,
      user: 'carl',
      password: 'pw',
      database: 'db',
      ssl: false,
    });
  });

  it("falls back on libpq's defaults: localhost, 5432, the login name, a database named as the user, prefer", () => {
    expect(resolvePostgresConnection('postgres://', {}, 'dora')).toMatchObject({
      host: 'localhost',
      port: 5432,
      user: 'dora',
      password: undefined,
      database: 'dora',
      sslmode: 'prefer',
      ssl: false,
    });
  });

  it.each([
    ['postgres://u:hunter2@h:0/db', 'port must be from 1 to 65535'],
    ['postgres://u:hunter2@h:99999/db', 'not a valid URL'],
    ['postgres://u:hunter2@h/db?sslmode=sometimes', 'sslmode must be one of'],
    ['postgres://u:hunter2@h/a/b', 'the database name cannot contain'],
    ['postgres://u:hunter2@[::1/db', 'not a valid URL'],
  ])('refuses %s with exit 2, never showing the password', (url, message) => {
    expect(refusal(url, message).message).toContain('u:***@');
  });

  it('reads a libpq host list, each host with its port, and target_session_attrs', () => {
    const connection = resolvePostgresConnection(
      'postgres://ann:pw@h1:5432,h2:5433,[::1]:5434/plants?target_session_attrs=read-write',
    );
    expect(connection).toMatchObject({
      host: 'h1',
      port: 5432,
      hosts: [
        { host: 'h1', port: 5432 },
        { host: 'h2', port: 5433 },
        { host: '::1', port: 5434 },
      ],
      user: 'ann',
      password: 'pw',
      database: 'plants',
      targetSessionAttrs: 'read-write',
    });
    expect(describeConnection(connection)).toBe('h1:5432,h2:5433,[::1]:5434, database plants');
    expect(checksServerRole(connection)).toBe(true);
  });

  it('gives a listed host without a port PGPORT, else 5432', () => {
    expect(resolvePostgresConnection('postgres://h1,h2:6000/db', { port: '7000' }).hosts).toEqual([
      { host: 'h1', port: 7000 },
      { host: 'h2', port: 6000 },
    ]);
    expect(resolvePostgresConnection('postgresql://h1,h2/db?target_session_attrs=primary').hosts).toEqual([
      { host: 'h1', port: 5432 },
      { host: 'h2', port: 5432 },
    ]);
  });

  it('takes PGHOST and PGPORT lists, one port for all or one for each host', () => {
    expect(resolvePostgresConnection('postgres:///db', { host: 'a,b', port: '5001,5002' }).hosts).toEqual([
      { host: 'a', port: 5001 },
      { host: 'b', port: 5002 },
    ]);
    expect(resolvePostgresConnection('postgres:///db', { host: 'a,b', port: '5001' }).hosts).toEqual([
      { host: 'a', port: 5001 },
      { host: 'b', port: 5001 },
    ]);
    expect(() => resolvePostgresConnection('postgres:///db', { host: 'a,b,c', port: '1,2' })).toThrow(
      '2 ports for 3 hosts',
    );
    expect(
      resolvePostgresConnection('postgres:///db', { host: 'a,b', targetSessionAttrs: 'primary' }).targetSessionAttrs,
    ).toBe('primary');
  });

  it('leaves a plain single-host URL without role checks (as before, and as CockroachDB needs)', () => {
    const connection = resolvePostgresConnection('postgres://u@h:5432/db');
    expect(connection.hosts).toEqual([{ host: 'h', port: 5432 }]);
    expect(connection.targetSessionAttrs).toBe('any');
    expect(checksServerRole(connection)).toBe(false);
    expect(checksServerRole(resolvePostgresConnection('postgres://u@h/db?target_session_attrs=primary'))).toBe(true);
  });

  it.each([
    ['postgres://u:hunter2@h1:5432,h2:0/db', 'port must be from 1 to 65535 (got 0)'],
    ['postgres://u:hunter2@h1:5432,h2:x/db', 'port must be from 1 to 65535 (got x)'],
    ['postgres://u:hunter2@h1,h2/db?target_session_attrs=standby', 'serve writes, so it needs read-write or primary'],
    ['postgres://u:hunter2@h1,h2/db?target_session_attrs=whatever', 'target_session_attrs must be one of'],
  ])('refuses %s with exit 2, never showing the password', (url, message) => {
    refusal(url, message);
  });

  it('redacts the password in the authority and in the query', () => {
    expect(redactUrl('postgres://u:p@h/db')).toBe('postgres://u:***@h/db');
    expect(redactUrl('postgres://h/db?user=u&password=p&sslmode=require')).toBe(
      'postgres://h/db?user=u&password=***&sslmode=require',
    );
    expect(redactUrl('postgres://h/db')).toBe('postgres://h/db');
  });
});

/** The error resolvePostgresConnection refuses `url` with: not unreachable, saying `message`, never the password. */
function refusal(url: string, message: string): DatabaseConnectError {
  let thrown: unknown;
  try {
    resolvePostgresConnection(url);
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(DatabaseConnectError);
  const error = thrown as DatabaseConnectError;
  expect(error.unreachable).toBe(false);
  expect(error.message).toContain(message);
  expect(error.message).not.toContain('hunter2');
  return error;
}
