/**
 * The one call a command makes in its init(), before oclif parses argv: .env is loaded (so its
 * variables count as environment and win over package.json), then the "bot" section of the
 * nearest package.json adds the defaults. `--help` is never blocked by a broken package.json.
 */
import {loadDotenv} from './config.js'
import {withPackageConfig, type FlagDefinition} from './package-config.js'

export async function applyPackageConfig(command: string, argv: string[], flags: unknown): Promise<string[]> {
  const options = argv.includes('--') ? argv.slice(0, argv.indexOf('--')) : argv
  if (options.includes('--help') || options.includes('-h')) return argv
  loadDotenv()
  const config = await withPackageConfig(command, argv, (flags ?? {}) as Record<string, FlagDefinition>)
  return config?.argv ?? argv
}
