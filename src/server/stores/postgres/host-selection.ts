import pg from 'pg';
import { describeHost, type PostgresConnection, type PostgresHost, tlsOptionsFor } from './connection-settings.js';
import { isTransientPostgresError, oneLine } from './postgres-errors.js';

/**
 * `standby`: in recovery; `read-only`: out of recovery but refusing writes (default_transaction_read_only);
 * `unreachable` is worth asking again; `refused` (password, database missing) is not.
 */
export interface HostProbe {
  address: PostgresHost;
  role: 'primary' | 'standby' | 'read-only' | 'unreachable' | 'refused';
  /** The same on a primary and every standby made from it. */
  systemId?: string;
  /** Each promotion starts a higher one. */
  timeline?: number;
  /** Tells one server reached by two names from two servers. */
  startedAt?: string;
  error?: unknown;
}

/** The rule never goes back below it. */
export interface ClusterMemory {
  systemId?: string;
  timeline: number;
}

export type PrimaryChoice =
  | { index: number; systemId: string; timeline: number }
  | { index: undefined; reason: string };

/**
 * The split-brain rule (docs/postgres.md): a server qualifies when it takes writes, is of the cluster serve has
 * used (system identifier) and on a timeline no lower than any chosen before, so a former primary restarted as
 * it was never qualifies again. The highest timeline wins; two servers taking writes on it is a split serve
 * takes no side in.
 */
export function choosePrimary(
  probes: readonly HostProbe[],
  memory: ClusterMemory,
  current?: PostgresHost,
): PrimaryChoice {
  const skipped: string[] = [];
  const candidates: Array<{ index: number; probe: HostProbe & { systemId: string; timeline: number } }> = [];
  const clusters = new Set(probes.flatMap((probe) => probe.systemId ?? []));
  if (memory.systemId === undefined && clusters.size > 1) {
    return { index: undefined, reason: 'the hosts belong to different clusters (system identifiers differ)' };
  }
  probes.forEach((probe, index) => {
    const where = describeHost(probe.address);
    if (probe.role !== 'primary' || probe.systemId === undefined || probe.timeline === undefined) {
      skipped.push(`${where} ${describeRole(probe)}`);
    } else if (memory.systemId !== undefined && probe.systemId !== memory.systemId) {
      skipped.push(`${where} belongs to another cluster`);
    } else if (probe.timeline < memory.timeline) {
      skipped.push(
        `${where} is a former primary (timeline ${probe.timeline}; serve has used timeline ${memory.timeline})`,
      );
    } else {
      candidates.push({ index, probe: probe as HostProbe & { systemId: string; timeline: number } });
    }
  });
  if (candidates.length === 0) {
    return { index: undefined, reason: `no host takes writes: ${skipped.join('; ') || 'no hosts'}` };
  }
  const newest = Math.max(...candidates.map((candidate) => candidate.probe.timeline));
  const onNewest = candidates.filter((candidate) => candidate.probe.timeline === newest);
  const servers = new Set(onNewest.map((candidate) => `${candidate.probe.systemId}/${candidate.probe.startedAt}`));
  if (servers.size > 1) {
    return {
      index: undefined,
      reason: `${onNewest.map((candidate) => describeHost(candidate.probe.address)).join(' and ')} all take writes on timeline ${newest}: refusing to choose between them (split brain?)`,
    };
  }
  const chosen =
    onNewest.find(
      (candidate) =>
        current !== undefined &&
        candidate.probe.address.host === current.host &&
        candidate.probe.address.port === current.port,
    ) ?? (onNewest[0] as (typeof onNewest)[number]);
  return { index: chosen.index, systemId: chosen.probe.systemId, timeline: newest };
}

function describeRole(probe: HostProbe): string {
  const said = oneLine(probe.error) || 'no answer';
  return {
    standby: 'is a standby (in recovery)',
    'read-only': 'is read-only',
    unreachable: `cannot be reached (${said})`,
    refused: `refused the connection (${said})`,
    primary: 'did not say its timeline',
  }[probe.role];
}

/**
 * The timeline is read from the name of the WAL file being written, which changes the moment a promotion ends;
 * pg_control_checkpoint() would keep the old one until the next checkpoint.
 */
const PROBE = `SELECT pg_is_in_recovery() AS in_recovery,
  current_setting('transaction_read_only') AS read_only,
  (SELECT system_identifier::text FROM pg_control_system()) AS system_id,
  CASE WHEN pg_is_in_recovery() THEN NULL ELSE pg_walfile_name(pg_current_wal_lsn()) END AS wal_file,
  pg_postmaster_start_time()::text AS started_at`;

interface ProbeRow {
  in_recovery: boolean;
  read_only: string;
  system_id: string;
  wal_file: string | null;
  started_at: string;
}

/** Never throws. */
export async function probeHost(
  connection: PostgresConnection,
  address: PostgresHost,
  timeoutMs: number,
): Promise<HostProbe> {
  const client = new pg.Client({
    host: address.host,
    port: address.port,
    user: connection.user,
    password: connection.password,
    database: connection.database,
    ssl: tlsOptionsFor(connection.sslmode, address.host),
    connectionTimeoutMillis: timeoutMs,
    query_timeout: timeoutMs,
    application_name: 'plants serve (probe)',
  });
  // A server that goes away mid-probe emits 'error' on the client: unheard, it ends the process.
  client.on('error', () => undefined);
  try {
    await client.connect();
    const { rows } = await client.query<ProbeRow>(PROBE);
    const row = rows[0] as ProbeRow;
    const base = { address, systemId: row.system_id, startedAt: row.started_at };
    if (row.in_recovery) return { ...base, role: 'standby' };
    if (row.read_only === 'on') return { ...base, role: 'read-only' };
    const timeline = row.wal_file === null ? undefined : Number.parseInt(row.wal_file.slice(0, 8), 16);
    return { ...base, role: 'primary', timeline };
  } catch (error) {
    return { address, role: isTransientPostgresError(error) ? 'unreachable' : 'refused', error };
  } finally {
    client.end().catch(() => undefined);
  }
}
