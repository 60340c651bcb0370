import { Flags } from '@oclif/core';
import { logIn } from '../cli/actions/log-in.js';
import { connectionFlags, PlantsCommand, requestFlags } from '../cli/base-command.js';

export class Login extends PlantsCommand {
  static override action = logIn;
  static override summary = 'Store a bearer token for a plant store.';
  static override description =
    `Tokens are kept per origin (scheme, host and port), like gh keeps them per host: a token stored for one origin is never sent to another. The first login to a --base-url also makes that store the default for later commands; after that the default changes only with --default (with a token already stored for the URL, --default alone switches to it, as gh auth switch does). Every login says which store is the default.

The token is tried on the store first (GET /plants?limit=1), as gh auth login does: a token the store refuses is not stored (exit 4), nor one for a URL that cannot be reached (nothing listening, no TLS on the port, a certificate for another name: exit 3, as any command). --offline stores it without trying it, for a store that is down. A plain-http URL of another machine is refused (exit 2) unless --insecure is given, as every command refuses it.

The token goes to the OS keyring where one answers (the macOS Keychain, Windows Credential Manager, a Secret Service such as GNOME Keyring or KWallet on Linux), and the config file keeps none; where none answers (a server, a container, CI) it goes to the config file, mode 0600, and login says so. --insecure-storage chooses the file on purpose. --profile NAME logs in to that profile, making it if need be.

Give the token with --with-token on stdin to keep it out of shell history and the process list. With neither --token nor --with-token, plants asks for it on the terminal (input hidden).`;
  static override examples = [
    '<%= config.bin %> login --token "$TOKEN"',
    '$ printf %s "$TOKEN" | <%= config.bin %> login --with-token',
    '<%= config.bin %> login --base-url https://plants.example.com --with-token < token.txt',
    '<%= config.bin %> login --base-url https://plants.example.com --default   # make a store logged in to the default',
    '<%= config.bin %> login --profile work --base-url https://plants.example.com --with-token < token.txt',
    '<%= config.bin %> login   # prompts on a terminal',
  ];
  static override flags = {
    ...connectionFlags,
    token: Flags.string({
      summary: 'The token (visible in shell history; prefer --with-token).',
      helpValue: 'TOKEN',
      exclusive: ['with-token'],
    }),
    'with-token': Flags.boolean({ summary: 'Read the token from stdin.', default: false }),
    default: Flags.boolean({
      summary: 'Make this store the default for later commands (with a token stored for it, no new token is needed).',
      default: false,
    }),
    'insecure-storage': Flags.boolean({
      summary: 'Keep the token in the config file (mode 0600) even where an OS keyring answers.',
      default: false,
    }),
    offline: Flags.boolean({
      summary: 'Store the token without trying it on the store (one that is down, or not reachable from here).',
      default: false,
    }),
    ...requestFlags,
  };
}
