/** The help topics of `plants help TOPIC` that are not commands: what every command shares. */
export const helpTopics: Record<string, { summary: string; text: string }> = {
  environment: {
    summary: 'Environment variables plants reads',
    text: `ENVIRONMENT VARIABLES
  PLANTS_TOKEN        The token to send, before the one stored for the origin.
                      plants serve: the token to accept when no --token is given.
  PLANTS_BASE_URL     The base URL when no --base-url is given.
  PLANTS_PROFILE      The profile (its default store, tokens and CA files) when no
                      --profile is given.
  PLANTS_CONFIG_DIR   The folder of config.json, instead of the user's config folder
                      ($XDG_CONFIG_HOME/plants, usually ~/.config/plants).
  PLANTS_DATA_DIR     The folder of the plants serve database, instead of the user's
                      data folder ($XDG_DATA_HOME/plants, usually ~/.local/share/plants).
  NO_COLOR            Any non-empty value: no colour (NO_COLOR="" counts as unset).
  FORCE_COLOR         Colour even in a pipe; wins over NO_COLOR and TERM=dumb (0 or false: unset).
  TERM                dumb: no colour.
  HTTPS_PROXY, HTTP_PROXY, NO_PROXY (or lower case)
                      Proxies, as usual.

  Precedence everywhere: flag, then environment, then config, then default.
  The default base URL is http://127.0.0.1:4010, where plants serve listens.`,
  },
  'exit-codes': {
    summary: 'What the exit codes of plants mean',
    text: `EXIT CODES
  0    Success.
  1    The server answered with an error, or with something that is not the declared
       shape; with many records (add --file), some were not added.
  2    Bad usage or input: nothing was sent (a --jq expression jq cannot compile; a
       record add --dry-run finds invalid; a profile that does not exist). For serve:
       options, a database file or a port that cannot be used. Also a --jq expression
       that fails on a value.
  3    The server could not be reached: connection, DNS, TLS, time-out, or the
       connection dropped in the middle of the answer.
  4    No token for this origin and the server wants one, or the server refused the
       token (401/403). plants status: no token for the default origin. The OS keyring
       holding the token does not answer.
  74   stdout could not be written (a full disk, > /dev/full).
  127  No such command (the closest one is suggested on stderr).
  130  Interrupted (Ctrl-C).
  141  stdout was closed before everything was written (| head -1): stopped at once.`,
  },
};
