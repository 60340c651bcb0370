import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { makeTempDir } from './cli.js';
import { suiteFixture } from './fixture.js';
import { hasProgram } from './shells.js';

const run = promisify(execFile);

const programs = ['dbus-daemon', 'dbus-send', 'gnome-keyring-daemon', 'secret-tool'];

/**
 * Whether the Secret Service tests run: Debian's gnome-keyring, libsecret-tools and a D-Bus
 * (dbus-x11) are here. In CI (CI=true) they never skip: missing programs are a failure there
 * (`.ci/run` installs them). Elsewhere they skip with one loud line.
 */
export function secretServiceTestsEnabled(): boolean {
  const missing = programs.filter((name) => !hasProgram(name));
  if (missing.length === 0) return true;
  if (process.env.CI === 'true') {
    throw new Error(`${missing.join(', ')} not found, and CI=true: the Secret Service tests never skip in CI`);
  }
  console.warn(
    `!!! Secret Service tests SKIPPED: no ${missing.join(', ')} (apt-get install gnome-keyring libsecret-tools dbus-x11) !!!`,
  );
  return false;
}

export interface SecretService {
  /** Its user's folder: HOME, where GNOME Keyring keeps its (encrypted) keyring files. */
  home: string;
  /** What a CLI process needs to use it: the session bus, HOME and XDG_DATA_HOME. */
  env: Record<string, string>;
  /** The secret kept for an account of plants (secret-tool lookup), or undefined. */
  lookup(account: string): Promise<string | undefined>;
  /** Stops GNOME Keyring (the bus stays, with no Secret Service on it: the keyring stops answering). */
  stopKeyring(): Promise<void>;
}

/**
 * A Secret Service of its own for the tests of a file: a session bus (dbus-daemon, with no
 * service activation, so that nothing starts behind the test's back) and GNOME Keyring on it,
 * its login keyring made and unlocked with a password on stdin, in a temporary HOME. Both are
 * stopped by their PIDs afterwards and the folder removed.
 *
 *   const keyring = useSecretService();
 */
export function useSecretService(): SecretService {
  return suiteFixture('file', startSecretService, (service) => service.close());
}

async function startSecretService(): Promise<SecretService & { close(): Promise<void> }> {
  const temp = makeTempDir('plants-keyring-');
  const config = path.join(temp.dir, 'bus.conf');
  writeFileSync(
    config,
    `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>unix:path=${path.join(temp.dir, 'bus')}</listen><auth>EXTERNAL</auth>
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy></busconfig>`,
  );
  const children: ChildProcess[] = [];
  const stop = async (child: ChildProcess) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  };
  const close = async () => {
    for (const child of children.reverse()) await stop(child);
    temp.remove();
  };
  try {
    const bus = spawn('dbus-daemon', ['--config-file', config, '--nofork', '--print-address=1'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    children.push(bus);
    const [address] = (await once(bus.stdout, 'data')) as [Buffer];
    const env = {
      DBUS_SESSION_BUS_ADDRESS: address.toString().trim(),
      HOME: temp.dir,
      XDG_DATA_HOME: path.join(temp.dir, '.local', 'share'),
      XDG_RUNTIME_DIR: temp.dir,
    };
    const keyring = spawn('gnome-keyring-daemon', ['--foreground', '--unlock', '--components=secrets'], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    children.push(keyring);
    keyring.stdin.end('fixture-password\n');
    const busEnv = { ...process.env, ...env };
    // Ready when it owns its name on the bus (the bus answers this at once, true or false).
    for (;;) {
      const { stdout } = await run(
        'dbus-send',
        [
          '--session',
          '--print-reply',
          '--dest=org.freedesktop.DBus',
          '/org/freedesktop/DBus',
          'org.freedesktop.DBus.NameHasOwner',
          'string:org.freedesktop.secrets',
        ],
        { env: busEnv },
      );
      if (stdout.includes('boolean true')) break;
      if (keyring.exitCode !== null) throw new Error(`gnome-keyring-daemon ended (${keyring.exitCode})`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return {
      home: temp.dir,
      env,
      async lookup(account) {
        const result = await run('secret-tool', ['lookup', 'service', 'plants', 'username', account], {
          env: busEnv,
        }).catch(() => ({ stdout: '' }));
        return result.stdout === '' ? undefined : result.stdout;
      },
      stopKeyring: () => stop(keyring),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
