/** The package managers `bot init` can install with, and how each spells its commands. */
export const PACKAGE_MANAGERS = ['npm', 'pnpm', 'yarn', 'bun'] as const
export type PackageManager = (typeof PACKAGE_MANAGERS)[number]

/**
 * The package manager that ran us, from npm_config_user_agent
 * ("pnpm/9.1.0 npm/? node/v20.11.0 linux x64"); npm when unknown.
 */
export function detectPackageManager(userAgent = process.env.npm_config_user_agent): PackageManager {
  const name = userAgent?.split('/')[0]?.trim()
  return (PACKAGE_MANAGERS as readonly string[]).includes(name ?? '') ? (name as PackageManager) : 'npm'
}

export interface PmCommands {
  /** argv of the install command, e.g. ['npm', 'install']. */
  install: string[]
  /** How a script is run, e.g. "npm run" (so "npm run typecheck"). */
  run: string
}

export function pmCommands(pm: PackageManager): PmCommands {
  switch (pm) {
    case 'npm':
      return {install: ['npm', 'install'], run: 'npm run'}
    case 'pnpm':
      return {install: ['pnpm', 'install'], run: 'pnpm'}
    case 'yarn':
      return {install: ['yarn', 'install'], run: 'yarn'}
    case 'bun':
      return {install: ['bun', 'install'], run: 'bun run'}
  }
}
