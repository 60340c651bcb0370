import { showStatus } from '../cli/actions/show-status.js';
import { PlantsCommand, storeFlags } from '../cli/base-command.js';

export class Status extends PlantsCommand {
  static override action = showStatus;
  static override summary =
    'Show the profile and the default store, the stored tokens (masked) and where they live, where each setting comes from, and whether the store answers.';
  static override description =
    `Checks that the default store answers and takes the token (GET /plants?limit=1), and exits as any command would on what it met: 3 when it cannot be reached, 4 when it refuses the token or there is no token for the default origin (also with --json), so scripts can check for a login:
  plants status >/dev/null 2>&1 || plants login --with-token < token.txt`;
  static override examples = [
    '<%= config.bin %> status',
    '<%= config.bin %> status --json',
    '<%= config.bin %> status --jq .store.token',
  ];
  static override flags = storeFlags;
}
