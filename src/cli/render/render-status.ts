import type { Status } from '../../config/session.js';
import type { Colors } from './colors.js';

const sourceWords = { flag: '--base-url', environment: 'environment', config: 'config', default: 'default' } as const;

/** `plants status` for a person: the default first, then every origin with a token. */
export function renderStatus(status: Status, c: Colors): string {
  const lines = [
    `${c.bold('Default store:')} ${status.defaultBaseUrl} ${c.dim(`(from ${sourceWords[status.defaultBaseUrlSource]})`)}`,
    `${c.bold('Config file:')}   ${status.configFile}`,
    '',
  ];
  for (const row of status.origins) {
    const mark = row.token === null ? c.red('✗') : c.green('✓');
    const token =
      row.token === null
        ? 'no token'
        : `token ${row.token} ${c.dim(`(from ${row.tokenSource === 'environment' ? 'PLANTS_TOKEN' : 'config'})`)}`;
    const caCert = row.caCert === undefined ? '' : `, TLS certificate trusted from ${row.caCert}`;
    lines.push(`${mark} ${row.origin}${row.isDefault ? c.cyan(' (default)') : ''}: ${token}${caCert}`);
  }
  return lines.join('\n');
}
