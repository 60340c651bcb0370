/**
 * The environment variables plants reads. This is the only module that looks at
 * process.env; everything else gets these values passed in.
 */
export type PlantsEnv = ReturnType<typeof readEnv>;

export type ColorMode = 'auto' | 'always' | 'never';

/**
 * When to colour: `always` with FORCE_COLOR (any value but empty, 0 or false; it wins over the
 * rest, as for Node and chalk), `never` with NO_COLOR (non-empty, as no-color.org says) or
 * TERM=dumb, else `auto`: on terminals only.
 */
function colorMode(env: NodeJS.ProcessEnv): ColorMode {
  const force = nonEmpty(env.FORCE_COLOR)?.toLowerCase();
  if (force !== undefined && force !== '0' && force !== 'false') return 'always';
  if (nonEmpty(env.NO_COLOR) !== undefined || env.TERM === 'dumb') return 'never';
  return 'auto';
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

export function readEnv(env: NodeJS.ProcessEnv = process.env) {
  return {
    /** PLANTS_TOKEN: a token for whatever origin the command talks to (before the config's). */
    token: nonEmpty(env.PLANTS_TOKEN),
    /** PLANTS_BASE_URL: the base URL when no --base-url flag is given. */
    baseUrl: nonEmpty(env.PLANTS_BASE_URL),
    /** PLANTS_CONFIG_DIR: the folder of config.json instead of the user's config folder. */
    configDir: nonEmpty(env.PLANTS_CONFIG_DIR),
    /** PLANTS_PROFILE: the profile of every command without --profile. */
    profile: nonEmpty(env.PLANTS_PROFILE),
    /** PLANTS_DATA_DIR: the folder of the `plants serve` database instead of the user's data folder. */
    dataDir: nonEmpty(env.PLANTS_DATA_DIR),
    /**
     * PLANTS_DATABASE_URL, else DATABASE_URL when it is a postgres:// URL (as Heroku-style
     * platforms set it; the variable is shared with every other program on the machine: only a
     * PostgreSQL one is ours to take): where `plants serve` keeps its plants when no flag says.
     */
    databaseUrl:
      nonEmpty(env.PLANTS_DATABASE_URL) ??
      (/^postgres(ql)?:\/\//i.test(env.DATABASE_URL ?? '') ? env.DATABASE_URL : undefined),
    /** libpq's variables: what a PostgreSQL URL leaves out. */
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
    /** DEBUG (any non-empty value): oclif's debug output is on, so stderr is masked for tokens. */
    debug: nonEmpty(env.DEBUG) !== undefined,
    /** HTTP_PROXY / HTTPS_PROXY / NO_PROXY, either case. */
    httpProxy: nonEmpty(env.HTTP_PROXY) ?? nonEmpty(env.http_proxy),
    httpsProxy: nonEmpty(env.HTTPS_PROXY) ?? nonEmpty(env.https_proxy),
    noProxy: nonEmpty(env.NO_PROXY) ?? nonEmpty(env.no_proxy),
  };
}
