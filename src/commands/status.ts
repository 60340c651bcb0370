import { connectionFlags, jsonFlag, PlantsCommand } from '../cli/base-command.js';

export class Status extends PlantsCommand {
  static override summary = 'Show the default store, the stored tokens (masked) and where each setting comes from.';
  static override description =
    `Exits 4 when the default origin has no token (also with --json), so scripts can check for a login:
  plants status >/dev/null 2>&1 || plants login --with-token < token.txt`;
  static override examples = ['<%= config.bin %> status', '<%= config.bin %> status --json'];
  static override flags = { ...connectionFlags, ...jsonFlag };

  async run(): Promise<void> {
    const { flags } = await this.parse(Status);
    const { showStatus } = await import('../cli/actions/show-status.js');
    await showStatus({ flagBaseUrl: flags['base-url'], json: flags.json }, this.factory, this.output);
  }
}
