/**
 * The environment variables plants reads. This is the only module that looks at
 * process.env; everything else gets these values passed in.
 */
export interface PlantsEnv {
  /** PLANTS_TOKEN: a token for whatever origin the command talks to (before the config's). */
  token: string | undefined;
  /** PLANTS_BASE_URL: the base URL when no --base-url flag is given. */
  baseUrl: string | undefined;
  /** PLANTS_CONFIG_DIR: the folder of config.json instead of the user's config folder. */
  configDir: string | undefined;
  /** PLANTS_PROFILE: the profile of every command without --profile. */
  profile: string | undefined;
  /** PLANTS_DATA_DIR: the folder of the `plants serve` database instead of the user's data folder. */
  dataDir: string | undefined;
  /**
   * PLANTS_DATABASE_URL, else DATABASE_URL when it is a postgres:// URL (as Heroku-style
   * platforms set it): where `plants serve` keeps its plants when no flag says.
   */
  databaseUrl: string | undefined;
  /** libpq's PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE, PGSSLMODE, PGTARGETSESSIONATTRS: what a PostgreSQL URL leaves out. */
  postgres: {
    host?: string;
    port?: string;
    user?: string;
    password?: string;
    database?: string;
    sslmode?: string;
    targetSessionAttrs?: string;
  };
  /**
   * When to colour: `always` with FORCE_COLOR (any value but empty, 0 or false; it wins over the
   * rest, as for Node and chalk), `never` with NO_COLOR (non-empty, as no-color.org says) or
   * TERM=dumb, else `auto`: on terminals only.
   */
  color: ColorMode;
  /** DEBUG (any non-empty value): oclif's debug output is on, so stderr is masked for tokens. */
  debug: boolean;
  /** HTTP_PROXY / HTTPS_PROXY / NO_PROXY, either case. */
  httpProxy: string | undefined;
  httpsProxy: string | undefined;
  noProxy: string | undefined;
}

export type ColorMode = 'auto' | 'always' | 'never';

function colorMode(env: NodeJS.ProcessEnv): ColorMode {
  const force = nonEmpty(env.FORCE_COLOR)?.toLowerCase();
  if (force !== undefined && force !== '0' && force !== 'false') return 'always';
  if (nonEmpty(env.NO_COLOR) !== undefined || env.TERM === 'dumb') return 'never';
  return 'auto';
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/** DATABASE_URL is shared with every other program on the machine: only a PostgreSQL one is ours to take. */
function postgresUrlOnly(value: string | undefined): string | undefined {
  return value !== undefined && /^postgres(ql)?:\/\//i.test(value) ? value : undefined;
}

export function readEnv(env: NodeJS.ProcessEnv = process.env): PlantsEnv {
  return {
    token: nonEmpty(env.PLANTS_TOKEN),
    baseUrl: nonEmpty(env.PLANTS_BASE_URL),
    configDir: nonEmpty(env.PLANTS_CONFIG_DIR),
    profile: nonEmpty(env.PLANTS_PROFILE),
    dataDir: nonEmpty(env.PLANTS_DATA_DIR),
    databaseUrl: nonEmpty(env.PLANTS_DATABASE_URL) ?? postgresUrlOnly(nonEmpty(env.DATABASE_URL)),
    postgres: {
      host: nonEmpty(env.PGHOST),
      port: nonEmpty(env.PGPORT),
      user: nonEmpty(env.PGUSER),
      password: nonEmpty(env.PGPASSWORD),
      database: nonEmpty(env.PGDATABASE),
      sslmode: nonEmpty(env.PGSSLMODE),
      targetSessionAttrs: nonEmpty(env.PGTARGETSESSIONATTRS),
    },
    color: colorMode(env),
    debug: nonEmpty(env.DEBUG) !== undefined,
    httpProxy: nonEmpty(env.HTTP_PROXY) ?? nonEmpty(env.http_proxy),
    httpsProxy: nonEmpty(env.HTTPS_PROXY) ?? nonEmpty(env.https_proxy),
    noProxy: nonEmpty(env.NO_PROXY) ?? nonEmpty(env.no_proxy),
  };
}
