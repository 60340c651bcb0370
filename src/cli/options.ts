/**
 * What the flags every store command shares (base-command.ts) give its action: each action's
 * options type is made of these and its own flags, so that nothing below `commands/` names a command.
 */

/** `--base-url`, `--profile`. */
export interface ConnectionOptions {
  'base-url'?: string | undefined;
  profile?: string | undefined;
}

/** `--timeout` (seconds), `--ca-cert`, `--insecure`, and where to send. */
export interface RequestOptions extends ConnectionOptions {
  timeout: number;
  'ca-cert'?: string | undefined;
  insecure: boolean;
}

/** `--json`, `--jq` (the runner compiles --jq and sets --json with it). */
export interface JsonOptions {
  json: boolean;
  jq?: string | undefined;
}
