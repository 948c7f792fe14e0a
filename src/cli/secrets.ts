/**
 * Last line of defence against printing a bot token: helpers shared by the base command and
 * bin/run.js (the redaction itself is telegram/redact.ts). Keep this module light (it is loaded at start-up).
 */
import {redactSecrets} from '../telegram/redact.js'

/** Values of --token in raw argv (`--token X` or `--token=X`), known before anything is parsed. */
export function tokensInArgv(argv: string[]): string[] {
  const out: string[] = []
  argv.forEach((arg, i) => {
    if (arg === '--token' && argv[i + 1]) out.push(argv[i + 1])
    else if (arg.startsWith('--token=')) out.push(arg.slice('--token='.length))
  })
  return out
}

/**
 * The warning for a secret given as a flag (`--restore-secret X`, `--secret-token=X`; words after
 * `--` are the bot's, not ours): one line saying that argv is visible to other local users, naming
 * the environment variable to use instead. Undefined when the flag is not in argv.
 */
export function argvSecretWarning(argv: string[], flag: string, envName: string): string | undefined {
  const end = argv.indexOf('--')
  const ours = end === -1 ? argv : argv.slice(0, end)
  if (!ours.some((a) => a === `--${flag}` || a.startsWith(`--${flag}=`))) return undefined
  return `! --${flag} is in the command line, which every user of this machine can read (ps, /proc): set ${envName} in the environment (or .env) instead.`
}

const allowed = new Set<string>()

/**
 * Let a value that is token-shaped but no secret (the emulator's built-in fake token, which
 * users must be able to copy) through the output filter installed by installOutputRedaction.
 */
export function allowInOutput(value: string): void {
  allowed.add(value)
}

function filter(text: string, secrets: Array<string | undefined>): string {
  if (allowed.size === 0) return redactSecrets(text, secrets)
  const kept: string[] = []
  let masked = text
  for (const value of allowed) masked = masked.split(value).join(`\u0000${kept.push(value) - 1}\u0000`)
  return redactSecrets(masked, secrets).replace(/\u0000(\d+)\u0000/g, (_m, i: string) => kept[Number(i)])
}

/**
 * Wrap process.stdout/stderr so that nothing this process writes can carry the token:
 * BOT_TOKEN (read at write time, so a token loaded from .env later is covered), --token
 * values from argv, and any token-shaped string. Covers output that never passes through a
 * command's own redaction (oclif's "command … not found", warnings, stack traces).
 */
export function installOutputRedaction(argv: string[]): void {
  const fromArgv = tokensInArgv(argv)
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean
    const redacting = (chunk: unknown, ...rest: unknown[]): boolean => {
      if (typeof chunk === 'string') return write(filter(chunk, [process.env.BOT_TOKEN, ...fromArgv]), ...rest)
      if (chunk instanceof Uint8Array) {
        const text = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('utf8')
        const clean = filter(text, [process.env.BOT_TOKEN, ...fromArgv])
        if (clean !== text) return write(clean, ...rest)
      }
      return write(chunk, ...rest)
    }
    stream.write = redacting as typeof stream.write
  }
}
