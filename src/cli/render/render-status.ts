import type { Status } from '../../config/session.js';
import type { Colors } from './colors.js';

const sourceWords = { flag: '--base-url', environment: 'environment', config: 'config', default: 'default' } as const;
const profileWords = { flag: '--profile', environment: 'PLANTS_PROFILE', default: 'default' } as const;

/** `refusedOrigin`: the store there has just refused its token (never marked ✓). */
export function renderStatus(status: Status, c: Colors, refusedOrigin?: string): string {
  const lines = [
    `${c.bold('Default store:')} ${status.defaultBaseUrl} ${c.dim(`(from ${sourceWords[status.defaultBaseUrlSource]})`)}`,
    `${c.bold('Profile:')}       ${status.profile} ${c.dim(`(from ${profileWords[status.profileSource]})`)}`,
    `${c.bold('Config file:')}   ${status.configFile}`,
    '',
  ];
  for (const row of status.origins) {
    const refused = row.token !== null && row.origin === refusedOrigin;
    const mark = row.token === null || refused ? c.red('✗') : c.green('✓');
    const token =
      row.token === null
        ? 'no token'
        : `token ${row.token} ${c.dim(`(from ${row.tokenSource === 'environment' ? 'PLANTS_TOKEN' : row.storedIn === 'keyring' ? 'the OS keyring' : 'config'})`)}${refused ? c.red(', refused by the store') : ''}`;
    const caCert = row.caCert === undefined ? '' : `, TLS certificate trusted from ${row.caCert}`;
    lines.push(`${mark} ${row.origin}${row.isDefault ? c.cyan(' (default)') : ''}: ${token}${caCert}`);
  }
  return lines.join('\n');
}
