import type { ConnectionOptions } from 'node:tls';
import { DatabaseConnectError } from '../../errors.js';

/** libpq's environment variables (PGHOST …), as src/cli/env.ts read them; each used when the URL leaves it out. */
export interface PostgresEnv {
  host?: string;
  port?: string;
  user?: string;
  password?: string;
  database?: string;
  sslmode?: string;
}

export type SslMode = 'disable' | 'allow' | 'prefer' | 'require' | 'verify-ca' | 'verify-full';
const SSL_MODES: readonly SslMode[] = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'];

/** Where and how to connect, resolved from the URL, then the environment, then libpq's defaults. */
export interface PostgresConnection {
  host: string;
  port: number;
  user: string;
  /** Never printed: `describe()` and every message leave it out. */
  password: string | undefined;
  database: string;
  sslmode: SslMode;
  /** For the driver: false (no TLS) or the TLS options sslmode calls for. */
  ssl: false | ConnectionOptions;
}

/** True for a URL that puts the store on PostgreSQL. */
export function isPostgresUrl(value: string): boolean {
  return /^postgres(ql)?:\/\//i.test(value);
}

/**
 * Reads a `postgres://` or `postgresql://` URL the way libpq does: user, password, host, port
 * and database from the URL, `sslmode` (and `host`, for a socket folder) from its query; what
 * it leaves out from PGUSER, PGPASSWORD, PGHOST, PGPORT, PGDATABASE, PGSSLMODE; then libpq's
 * defaults (localhost, 5432, the user's login name, a database named as the user, `prefer`).
 * A malformed URL is exit 2, quoted without its password.
 */
export function resolvePostgresConnection(
  url: string,
  env: PostgresEnv = {},
  loginName = 'postgres',
): PostgresConnection {
  const shown = redactUrl(url);
  const bad = (why: string) =>
    new DatabaseConnectError(`--database ${shown}: ${why}`, {
      database: shown,
      hints: ['A PostgreSQL URL looks like postgres://USER:PASSWORD@HOST:5432/DATABASE?sslmode=require'],
    });
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw bad('not a valid URL');
  }
  if (!isPostgresUrl(url)) throw bad('not a postgres:// or postgresql:// URL');
  const decode = (text: string, what: string) => {
    try {
      return decodeURIComponent(text);
    } catch {
      throw bad(`the ${what} is not valid percent-encoding`);
    }
  };
  const query = parsed.searchParams;
  const host =
    nonEmpty(decode(parsed.hostname, 'host').replace(/^\[(.*)\]$/, '$1')) ??
    query.get('host') ??
    env.host ??
    'localhost';
  const portText = nonEmpty(parsed.port) ?? query.get('port') ?? env.port ?? '5432';
  const port = Number(portText);
  if (!/^\d{1,5}$/.test(portText) || port < 1 || port > 65_535)
    throw bad(`port must be from 1 to 65535 (got ${portText})`);
  const user = nonEmpty(decode(parsed.username, 'user name')) ?? query.get('user') ?? env.user ?? loginName;
  const password = nonEmpty(decode(parsed.password, 'password')) ?? query.get('password') ?? env.password;
  const path = decode(parsed.pathname.replace(/^\//, ''), 'database name');
  if (path.includes('/')) throw bad('the database name cannot contain "/"');
  const database = nonEmpty(path) ?? query.get('dbname') ?? env.database ?? user;
  const modeText = query.get('sslmode') ?? env.sslmode ?? 'prefer';
  if (!(SSL_MODES as readonly string[]).includes(modeText)) {
    throw bad(`sslmode must be one of ${SSL_MODES.join(', ')} (got ${modeText.slice(0, 20)})`);
  }
  const sslmode = modeText as SslMode;
  return { host, port, user, password, database, sslmode, ssl: tlsFor(sslmode, host) };
}

/**
 * libpq's sslmode for a driver that cannot fall back from TLS to clear text: `disable`,
 * `allow` and `prefer` connect without TLS; `require` encrypts without checking the
 * certificate (as libpq does); `verify-ca` checks the chain, `verify-full` the host name too.
 */
function tlsFor(mode: SslMode, host: string): false | ConnectionOptions {
  switch (mode) {
    case 'disable':
    case 'allow':
    case 'prefer':
      return false;
    case 'require':
      return { rejectUnauthorized: false };
    case 'verify-ca':
      return { rejectUnauthorized: true, checkServerIdentity: () => undefined };
    case 'verify-full':
      return { rejectUnauthorized: true, servername: host };
  }
}

/** `host:port, database name` for messages and the banner: never the password. */
export function describeConnection(connection: PostgresConnection): string {
  const host = connection.host.includes(':') ? `[${connection.host}]` : connection.host;
  return `${host}:${connection.port}, database ${connection.database}`;
}

/** The URL as it may be shown: the password, in the authority or the query, replaced by `***`. */
export function redactUrl(url: string): string {
  return url
    .replace(/^([a-z][a-z0-9+.-]*:\/\/[^/?#@:]*):[^@/?#]*@/i, '$1:***@')
    .replace(/([?&]password=)[^&#]*/gi, '$1***')
    .slice(0, 300);
}

function nonEmpty(value: string | null | undefined): string | undefined {
  return value === null || value === undefined || value === '' ? undefined : value;
}
