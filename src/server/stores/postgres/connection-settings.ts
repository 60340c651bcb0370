import type { ConnectionOptions } from 'node:tls';
import { DatabaseConnectError } from '../store-errors.js';

/** libpq's environment variables (PGHOST …), each used when the URL leaves it out. */
export interface PostgresEnv {
  host?: string;
  port?: string;
  user?: string;
  password?: string;
  database?: string;
  sslmode?: string;
  /** PGTARGETSESSIONATTRS. */
  targetSessionAttrs?: string;
}

export type SslMode = 'disable' | 'allow' | 'prefer' | 'require' | 'verify-ca' | 'verify-full';
const SSL_MODES: readonly SslMode[] = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'];

export interface PostgresHost {
  host: string;
  port: number;
}

/** serve writes, so only the values that pick a server taking writes; `any` with several hosts is `read-write`. */
export type TargetSessionAttrs = 'any' | 'read-write' | 'primary';
const TARGET_SESSION_ATTRS: readonly TargetSessionAttrs[] = ['any', 'read-write', 'primary'];
const READ_ONLY_TARGETS = ['read-only', 'standby', 'prefer-standby'];

export interface PostgresConnection {
  /** The first of `hosts`. */
  host: string;
  port: number;
  hosts: readonly PostgresHost[];
  targetSessionAttrs: TargetSessionAttrs;
  user: string;
  /** Never printed: `describe()` and every message leave it out. */
  password: string | undefined;
  database: string;
  sslmode: SslMode;
  ssl: false | ConnectionOptions;
}

/** A plain single-host URL makes no role queries, which CockroachDB and YugabyteDB would not answer. */
export function checksServerRole(connection: PostgresConnection): boolean {
  return connection.hosts.length > 1 || connection.targetSessionAttrs !== 'any';
}

export function isPostgresUrl(value: string): boolean {
  return /^postgres(ql)?:\/\//i.test(value);
}

/** The way libpq reads it: the URL, then its query, then the environment, then libpq's defaults. */
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
  // WHATWG URL takes one host: a libpq host list (h1:5432,h2:5433) is cut out first and read here.
  const split = splitHostList(url);
  let parsed: URL;
  try {
    parsed = new URL(split === undefined ? url : `${split.before}placeholder${split.after}`);
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
  // Each `host[:port]` (`[v6]:port`) of the list, or the one the URL names (WHATWG keeps no empty port).
  const entries = (split?.hosts ?? [parsed.host]).map((entry) => {
    const match = /^(\[[^\]]*\]|[^:]*)(?::(.*))?$/.exec(entry);
    const host = decode(match?.[1] ?? '', 'host').replace(/^\[(.*)\]$/, '$1');
    return { host: nonEmpty(host), port: match?.[2] };
  });
  // A host list from the query or the environment (libpq's host=h1,h2 and PGHOST=h1,h2) when the URL names none.
  const listed =
    entries.length === 1 && entries[0]?.host === undefined
      ? (query.get('host') ?? env.host)?.split(',').map((host) => nonEmpty(host.trim()))
      : undefined;
  const hostNames = listed ?? entries.map((entry) => entry.host);
  const defaultPorts = (entries.length === 1 ? entries[0]?.port : undefined) ?? query.get('port') ?? env.port;
  const portList = defaultPorts?.split(',').map((port) => port.trim());
  if (portList !== undefined && portList.length > 1 && portList.length !== hostNames.length) {
    throw bad(`${portList.length} ports for ${hostNames.length} hosts: give one port, or one for each host`);
  }
  const hosts = hostNames.map((name, index): PostgresHost => {
    const own = split === undefined || listed !== undefined ? undefined : nonEmpty(entries[index]?.port);
    const portText = own ?? nonEmpty(portList?.[portList.length === 1 ? 0 : index]) ?? '5432';
    const port = Number(portText);
    if (!/^\d{1,5}$/.test(portText) || port < 1 || port > 65_535)
      throw bad(`port must be from 1 to 65535 (got ${portText.slice(0, 20)})`);
    return { host: name ?? 'localhost', port };
  });
  const { host, port } = hosts[0] as PostgresHost;
  const user = nonEmpty(decode(parsed.username, 'user name')) ?? query.get('user') ?? env.user ?? loginName;
  const password = nonEmpty(decode(parsed.password, 'password')) ?? query.get('password') ?? env.password;
  const path = decode(parsed.pathname.replace(/^\//, ''), 'database name');
  if (path.includes('/')) throw bad('the database name cannot contain "/"');
  const database = nonEmpty(path) ?? query.get('dbname') ?? env.database ?? user;
  const oneOf = <T extends string>(name: string, text: string, values: readonly T[]): T => {
    if ((values as readonly string[]).includes(text)) return text as T;
    throw bad(`${name} must be one of ${values.join(', ')} (got ${text.slice(0, 20)})`);
  };
  const sslmode = oneOf('sslmode', query.get('sslmode') ?? env.sslmode ?? 'prefer', SSL_MODES);
  const targetText = query.get('target_session_attrs') ?? env.targetSessionAttrs ?? 'any';
  if (READ_ONLY_TARGETS.includes(targetText)) {
    throw bad(`target_session_attrs=${targetText} cannot work: serve writes, so it needs read-write or primary`);
  }
  const targetSessionAttrs = oneOf('target_session_attrs', targetText, TARGET_SESSION_ATTRS);
  return {
    host,
    port,
    hosts,
    targetSessionAttrs,
    user,
    password,
    database,
    sslmode,
    ssl: tlsOptionsFor(sslmode, host),
  };
}

function splitHostList(url: string): { before: string; hosts: string[]; after: string } | undefined {
  const match = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)(.*)$/is.exec(url);
  if (match === null) return undefined;
  const [, scheme = '', authority = '', after = ''] = match;
  const at = authority.lastIndexOf('@');
  const hostList = authority.slice(at + 1);
  if (!hostList.includes(',')) return undefined;
  return { before: `${scheme}${authority.slice(0, at + 1)}`, hosts: hostList.split(','), after };
}

/** libpq's sslmode for a driver that cannot fall back from TLS to clear text: `allow` and `prefer` do not try TLS. */
export function tlsOptionsFor(mode: SslMode, host: string): false | ConnectionOptions {
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

export function describeConnection(connection: PostgresConnection): string {
  return `${connection.hosts.map(describeHost).join(',')}, database ${connection.database}`;
}

export function describeHost(address: PostgresHost): string {
  return `${address.host.includes(':') ? `[${address.host}]` : address.host}:${address.port}`;
}

export function redactUrl(url: string): string {
  return url
    .replace(/^([a-z][a-z0-9+.-]*:\/\/[^/?#@:]*):[^@/?#]*@/i, '$1:***@')
    .replace(/([?&]password=)[^&#]*/gi, '$1***')
    .slice(0, 300);
}

function nonEmpty(value: string | null | undefined): string | undefined {
  return value === null || value === undefined || value === '' ? undefined : value;
}
