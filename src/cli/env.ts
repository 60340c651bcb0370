/** The environment variables plants reads: the only module that looks at process.env. */
export type PlantsEnv = ReturnType<typeof readEnv>;

export type ColorMode = 'auto' | 'always' | 'never';

/** FORCE_COLOR wins over NO_COLOR and TERM=dumb, as for Node and chalk; else colour on terminals only. */
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
    /** A token for whatever origin the command talks to (before the config's). */
    token: nonEmpty(env.PLANTS_TOKEN),
    baseUrl: nonEmpty(env.PLANTS_BASE_URL),
    configDir: nonEmpty(env.PLANTS_CONFIG_DIR),
    profile: nonEmpty(env.PLANTS_PROFILE),
    dataDir: nonEmpty(env.PLANTS_DATA_DIR),
    /** DATABASE_URL (as Heroku-style platforms set it) is shared with other programs: only a PostgreSQL one is ours. */
    databaseUrl:
      nonEmpty(env.PLANTS_DATABASE_URL) ??
      (/^postgres(ql)?:\/\//i.test(env.DATABASE_URL ?? '') ? env.DATABASE_URL : undefined),
    /** What a PostgreSQL URL leaves out. */
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
    /** oclif's debug output is on: stderr is masked for tokens. */
    debug: nonEmpty(env.DEBUG) !== undefined,
    httpProxy: nonEmpty(env.HTTP_PROXY) ?? nonEmpty(env.http_proxy),
    httpsProxy: nonEmpty(env.HTTPS_PROXY) ?? nonEmpty(env.https_proxy),
    noProxy: nonEmpty(env.NO_PROXY) ?? nonEmpty(env.no_proxy),
  };
}
