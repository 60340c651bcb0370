import { connectionFlags, jsonFlag, PlantsCommand } from '../cli/base-command.js';
import { ExitCode } from '../errors.js';

export class Status extends PlantsCommand {
  static override summary = 'Show the default store, the stored tokens (masked) and where each setting comes from.';
  static override description =
    `Exits 4 when the default origin has no token (also with --json), so scripts can check for a login:
  plants status >/dev/null 2>&1 || plants login --with-token < token.txt`;
  static override examples = ['<%= config.bin %> status', '<%= config.bin %> status --json'];
  static override flags = { ...connectionFlags, ...jsonFlag };

  async run(): Promise<void> {
    const { flags } = await this.parse(Status);
    const { describeStatus } = await import('../config/session.js');
    const status = describeStatus(await this.factory.config(), this.factory.settingInputs(flags['base-url']));
    if (flags.json) {
      this.output.data(JSON.stringify(status, null, 2));
    } else {
      const { renderStatus } = await import('../cli/render/render-status.js');
      this.output.data(renderStatus(status, this.output.color));
    }
    if (!status.authenticated) {
      if (!flags.json)
        this.output.info(`No token for ${status.defaultOrigin}: run \`plants login\` or set PLANTS_TOKEN.`);
      process.exitCode = ExitCode.auth;
    }
  }
}
