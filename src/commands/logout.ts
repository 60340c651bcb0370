import { logOut } from '../cli/actions/log-out.js';
import { connectionFlags, PlantsCommand } from '../cli/base-command.js';

export class Logout extends PlantsCommand {
  static override action = logOut;
  static override summary = 'Forget the token of a plant store.';
  static override description =
    'Removes the token stored for the origin of --base-url (or of the default base URL), from the OS keyring or the config file, wherever it is. Other origins keep theirs. In a profile (--profile), the profile keeps its default store.';
  static override examples = [
    '<%= config.bin %> logout',
    '<%= config.bin %> logout --base-url https://plants.example.com',
    '<%= config.bin %> logout --profile work',
  ];
  static override flags = { ...connectionFlags };
}
