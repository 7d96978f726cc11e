import { describe, expect, it } from 'vitest';
import { Command, InvalidArgumentError, runCli } from '../src/index';

function program(ran: string[]) {
  const root = new Command('tool');
  const thing = root.command('thing').description('things');
  thing
    .command('make')
    .requiredOption('--size <n>', 'a size', (v: string) => {
      if (!/^\d+$/.test(v)) throw new InvalidArgumentError('--size must be a whole number');
      return Number(v);
    })
    .action((opts: { size: number }) => void ran.push(`make ${opts.size}`));
  root.command('fail').action(() => {
    throw new Error('it broke');
  });
  return root;
}

async function run(argv: string[]) {
  const ran: string[] = [];
  const out: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  const writeErr = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((s: string) => (out.push(s), true)) as typeof process.stdout.write;
  process.stderr.write = ((s: string) => (out.push(s), true)) as typeof process.stderr.write;
  try {
    const code = await runCli(program(ran), argv, 'tool');
    return { code, ran, text: out.join('') };
  } finally {
    process.stdout.write = write;
    process.stderr.write = writeErr;
  }
}

describe('runCli', () => {
  it('runs a sub-command', async () => {
    expect(await run(['thing', 'make', '--size', '3'])).toMatchObject({ code: 0, ran: ['make 3'] });
  });

  it('prints help with exit 0 for --help, -h and help on every level', async () => {
    for (const argv of [
      ['--help'],
      ['-h'],
      ['help'],
      ['thing', '--help'],
      ['help', 'thing'],
      ['thing', 'make', '-h'],
    ]) {
      const res = await run(argv);
      expect(res.code, argv.join(' ')).toBe(0);
      expect(res.text, argv.join(' ')).toMatch(/Usage: tool/);
      expect(res.ran).toEqual([]);
    }
  });

  it('answers a wrong command line with the message, the usage and exit 2', async () => {
    for (const [argv, message] of [
      [['frobnicate'], /unknown command 'frobnicate'/],
      [['thing', 'make'], /required option '--size <n>' not specified/],
      [['thing', 'make', '--size', 'big'], /--size must be a whole number/],
      [['thing', 'make', '--size', '1', '--colour', 'red'], /unknown option '--colour'/],
      [[], /Usage: tool/],
    ] as [string[], RegExp][]) {
      const res = await run(argv);
      expect(res.code, argv.join(' ')).toBe(2);
      expect(res.text, argv.join(' ')).toMatch(message);
      expect(res.text, argv.join(' ')).toMatch(/Usage: tool/);
      expect(res.ran).toEqual([]);
    }
  });

  it('reports a failed command as "<name>: <message>" with exit 1', async () => {
    const res = await run(['fail']);
    expect(res.code).toBe(1);
    expect(res.text).toBe('tool: it broke\n');
  });
});
