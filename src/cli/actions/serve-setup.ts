import { createPrivateKey, type KeyObject, randomBytes, randomInt, X509Certificate } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import { rootCertificates } from 'node:tls';
import { isLoopbackHost } from '../../client/base-url.js';
import { InvalidInputError } from '../../errors.js';
import { whyUnreadable } from '../../files/unreadable-file.js';
import type { LogFormat, LogLevel } from '../../server/observability/server-log.js';
import { isDatabaseServer } from '../../server/stores/open-store.js';
import { MAX_FAULT_SEED } from '../../server/test-double/prng.js';
import { describeDelay, describeFaults, parseDelay, parseFaults } from '../../server/test-double/testing-options.js';
import type { PlantsEnv } from '../env.js';
import type { DetachedServePlan } from './serve-detach.js';
import { keptTokenFile, readKeptToken } from './serve-token.js';

/** The tokens `plants serve` accepts: every --token, else PLANTS_TOKEN, else one made up for this run. */
export function serveTokens(
  flagTokens: readonly string[] | undefined,
  env: PlantsEnv,
): { tokens: string[]; generated: boolean } {
  if (flagTokens !== undefined && flagTokens.length > 0) return { tokens: [...flagTokens], generated: false };
  if (env.token !== undefined) return { tokens: [env.token], generated: false };
  return { tokens: [randomBytes(24).toString('base64url')], generated: true };
}

/** Where `plants serve` keeps its plants: the flags, the environment, else plants.db in the user's data folder. */
export async function serveDatabase(
  flags: Pick<ServeFlags, 'memory' | 'db' | 'database'>,
  env: PlantsEnv,
): Promise<string> {
  if (flags.memory) return ':memory:';
  if (flags.db !== undefined) return flags.db;
  const url = flags.database ?? env.databaseUrl;
  if (url === undefined) {
    const dir = env.dataDir ?? (await import('env-paths')).default('plants', { suffix: '' }).data;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return path.join(dir, 'plants.db');
  }
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  if (scheme === undefined || scheme === 'file' || scheme === 'postgres' || scheme === 'postgresql') return url;
  // One letter: a Windows drive (C:\plants.db), a path.
  if (scheme.length === 1) return url;
  const from = flags.database === undefined ? 'PLANTS_DATABASE_URL' : '--database';
  throw new InvalidInputError(
    `${from}: plants serve keeps plants in PostgreSQL (postgres://…) or SQLite (a file path or file: URL), not ${scheme}:`,
  );
}

export function servesTokensInClear(host: string, tls: boolean): boolean {
  return !tls && !isLoopbackHost(host);
}

/**
 * The URL a client on this machine logs in to: loopback for 0.0.0.0 and ::; with TLS, a host the
 * certificate names, and the file for --ca-cert when no authority Node trusts signed it.
 */
export function loginTarget(url: string, certPath: string | undefined): { url: string; caCert?: string } {
  const target = new URL(url);
  if (target.hostname === '0.0.0.0') target.hostname = '127.0.0.1';
  if (target.hostname === '[::]') target.hostname = '[::1]';
  if (certPath === undefined) return { url: target.origin };
  const cert = new X509Certificate(readFileSync(certPath));
  const host = target.hostname.replace(/^\[|\]$/g, '');
  if ((isIP(host) === 0 ? cert.checkHost(host) : cert.checkIP(host)) === undefined) {
    const names = (cert.subjectAltName ?? '').split(', ').map((entry) => entry.replace(/^(DNS|IP Address):/, ''));
    const usable = names.find((name) => name !== '' && !name.includes('*') && !name.includes('='));
    if (usable !== undefined) target.hostname = usable.includes(':') ? `[${usable}]` : usable;
  }
  const trusted = rootCertificates.some((pem) => {
    const root = new X509Certificate(pem);
    return cert.checkIssued(root) && cert.verify(root.publicKey);
  });
  return trusted ? { url: target.origin } : { url: target.origin, caCert: path.resolve(certPath) };
}

/** How the person ran plants (`plants`, `./bin/run.js`), so that the banner's commands paste as they are. */
export function invocationName(script: string | undefined, cwd: string): string {
  if (script === undefined || path.basename(script) === 'plants') return 'plants';
  const relative = path.relative(cwd, script);
  return relative.startsWith('..') || path.isAbsolute(relative) ? script : `./${relative}`;
}

export interface ServeFlags {
  port: number;
  host: string;
  db?: string | undefined;
  memory: boolean;
  database?: string | undefined;
  token?: string[] | undefined;
  durability?: string | undefined;
  quiet: boolean;
  'log-format': string;
  'log-level': string;
  metrics?: boolean | undefined;
  'metrics-token'?: string | undefined;
  cors?: string[] | undefined;
  'tls-cert'?: string | undefined;
  'tls-key'?: string | undefined;
  detach?: boolean | undefined;
  'pid-file'?: string | undefined;
  seed?: string | undefined;
  'allow-reset': boolean;
  delay?: string | undefined;
  fault?: string[] | undefined;
  'fault-seed'?: number | undefined;
  open: boolean;
  'detached-child': boolean;
}

/** Everything `plants serve` decides before it starts. */
export async function servePlan(
  flags: ServeFlags,
  env: PlantsEnv,
): Promise<{
  plan: DetachedServePlan;
  generated: boolean;
  keptToken: { file: string; fresh: boolean; warning: string | undefined } | undefined;
}> {
  const testing = testingPlan(flags);
  const database = await serveDatabase(flags, env);
  if (flags.durability !== undefined && isDatabaseServer(database)) {
    // A flag that would change nothing is a mistake, as pg_dump holds.
    throw new InvalidInputError(
      `--durability applies to a SQLite file only; PostgreSQL commits as its server is set up to (${flags.database === undefined ? 'the store comes from PLANTS_DATABASE_URL or DATABASE_URL' : 'the store is --database'})`,
      { hints: ['Leave --durability out, or set synchronous_commit on the PostgreSQL server.'] },
    );
  }
  const given = serveTokens(flags.token, env);
  // A made-up token is kept beside a SQLite file: a restart offers it again, so logins hold.
  const tokenFile = given.generated ? keptTokenFile(database) : undefined;
  const kept = tokenFile === undefined ? undefined : readKeptToken(tokenFile);
  const tokens = kept === undefined ? given.tokens : [kept.token];
  const keptToken =
    tokenFile === undefined ? undefined : { file: tokenFile, fresh: kept === undefined, warning: kept?.warning };
  const cert = flags['tls-cert'];
  const key = flags['tls-key'];
  return {
    plan: {
      host: flags.host,
      port: flags.port,
      database,
      tokens,
      // Written by the server that runs, once it listens.
      tokenFile: keptToken?.fresh === true ? keptToken.file : undefined,
      durability: flags.durability === 'normal' ? 'normal' : 'full',
      tls: cert === undefined || key === undefined ? undefined : { certPath: cert, keyPath: key },
      logFormat: flags['log-format'] as LogFormat,
      logLevel: flags['log-level'] as LogLevel,
      metrics: flags.metrics === true,
      metricsToken: flags['metrics-token'],
      corsOrigins: flags.cors,
      ...testing,
    },
    generated: given.generated,
    keptToken,
  };
}

function testingPlan(
  flags: ServeFlags,
): Pick<DetachedServePlan, 'seedFile' | 'allowReset' | 'delay' | 'faults' | 'faultSeed'> {
  const delay = flags.delay === undefined ? undefined : parseDelay(flags.delay);
  const faults = parseFaults(flags.fault ?? []);
  if (flags['fault-seed'] !== undefined && faults.length === 0 && delay === undefined) {
    throw new InvalidInputError('--fault-seed seeds --fault (and --delay): give one of them too');
  }
  return {
    seedFile: flags.seed,
    allowReset: flags['allow-reset'] === true,
    delay,
    faults,
    // Drawn here when not given, so that the banner can say which seed replays this run.
    faultSeed: flags['fault-seed'] ?? randomInt(0, MAX_FAULT_SEED),
  };
}

/** The banner's lines for the test-double options; `seedCount` is unknown in the parent of --detach. */
export function describeTesting(plan: DetachedServePlan, seedCount: number | undefined): string[] {
  const lines: string[] = [];
  if (plan.seedFile !== undefined) {
    lines.push(
      `seed: ${plan.seedFile}${seedCount === undefined ? '' : ` (${seedCount} plant${seedCount === 1 ? '' : 's'})`}`,
    );
  }
  if (plan.allowReset === true) {
    lines.push(
      `reset: allowed (POST /reset, or plants reset) puts back ${plan.seedFile === undefined ? 'an empty store' : 'the seed'}`,
    );
  }
  if (plan.delay !== undefined) {
    lines.push(`delay: ${describeDelay(plan.delay)} before each answer of the plant routes`);
  }
  const faults = plan.faults ?? [];
  if (faults.length > 0) {
    lines.push(
      `faults: ${describeFaults(faults)} of plant requests (--fault-seed ${plan.faultSeed} gives the same faults again)`,
    );
  }
  return lines;
}

/** The PEM files of --tls-cert and --tls-key: a bad or swapped file is named with its flag, never with OpenSSL's codes. */
export function readTlsFiles(certPath: string, keyPath: string): { cert: Buffer; key: Buffer } {
  const cert = readPem('--tls-cert', certPath);
  const key = readPem('--tls-key', keyPath);
  const certText = cert.toString('latin1');
  const keyText = key.toString('latin1');
  if (!certText.includes('-----BEGIN CERTIFICATE-----')) {
    const swapped = certText.includes('PRIVATE KEY-----') && keyText.includes('-----BEGIN CERTIFICATE-----');
    throw new InvalidInputError(
      swapped
        ? `--tls-cert ${certPath} holds a private key and --tls-key ${keyPath} a certificate: swap them`
        : `--tls-cert ${certPath} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`,
    );
  }
  if (!keyText.includes('PRIVATE KEY-----')) {
    throw new InvalidInputError(`--tls-key ${keyPath} holds no PEM private key (-----BEGIN PRIVATE KEY-----)`);
  }
  if (!keyMatches(cert, key)) {
    throw new InvalidInputError(
      `--tls-cert ${certPath} and --tls-key ${keyPath} do not belong together: the key is not the certificate's private key`,
    );
  }
  return { cert, key };
}

/** False only when both could be read and do not match (anything else, TLS reports when it starts). */
function keyMatches(cert: Buffer, key: Buffer): boolean {
  let pair: [X509Certificate, KeyObject];
  try {
    pair = [new X509Certificate(cert), createPrivateKey(key)];
  } catch {
    return true;
  }
  return pair[0].checkPrivateKey(pair[1]);
}

function readPem(flag: string, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    const why = whyUnreadable(error);
    throw new InvalidInputError(`${flag} ${file}: cannot read it: ${why}`, { cause: error });
  }
}
