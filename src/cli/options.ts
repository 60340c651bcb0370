/** The flags every store command shares (base-command.ts), so that nothing below `commands/` names a command. */
export interface ConnectionOptions {
  'base-url'?: string | undefined;
  profile?: string | undefined;
}

export interface RequestOptions extends ConnectionOptions {
  timeout: number;
  'ca-cert'?: string | undefined;
  insecure: boolean;
}

export interface JsonOptions {
  json: boolean;
  jq?: string | undefined;
}
