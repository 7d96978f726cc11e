/**
 * How both CLIs (the Hub's and Core's) run their commander program: `--help`, `-h` and `help` on every command
 * and sub-command print the usage and exit 0; an unknown command, option or bad value prints the message, then the
 * usage, and exits 2; a command that fails prints `<name>: <message>` and exits 1.
 */
import { Command, CommanderError } from 'commander';

export { Command, InvalidArgumentError, Option } from 'commander';

export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

export async function runCli(program: Command, argv: readonly string[], name: string): Promise<number> {
  const configure = (command: Command) => {
    command.exitOverride().showHelpAfterError();
    command.commands.forEach(configure);
  };
  configure(program);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : EXIT_USAGE;
    process.stderr.write(`${name}: ${err instanceof Error ? err.message : String(err)}\n`);
    return EXIT_FAILED;
  }
}
