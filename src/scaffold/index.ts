/**
 * `bot init`: turn a template folder into a new project. No oclif here: the command parses
 * flags and renders; this module validates, writes, installs and initialises git.
 */
import {readFileSync, realpathSync} from 'node:fs'
import {readdir, stat} from 'node:fs/promises'
import {basename, join, relative, resolve, sep} from 'node:path'
import {fileURLToPath} from 'node:url'

import {FixableError, UsageError} from '../lib/errors.js'
import {inspectToken} from '../telegram/token.js'
import {planCopy, writePlan, type CopyPlan} from './copy.js'
import {packageNameProblem, suggestPackageName} from './package-name.js'
import {pmCommands, type PackageManager} from './package-manager.js'
import {checkNoEscapingLinks, checkTargetDir} from './target.js'
import {
  listTemplates,
  templateInfo,
  templateLayers,
  templatesRoot,
  TEMPLATE_NAMES,
  type TemplateInfo,
} from './templates.js'

export * from './templates.js'
export * from './package-name.js'
export * from './package-manager.js'
export {installDependencies, type InstallResult} from './install.js'
export {initGit, type GitResult} from './git.js'
export {substitute} from './copy.js'

export interface InitOptions {
  /** The project folder as the user gave it (relative to cwd, or absolute). */
  dir: string
  cwd?: string
  template: string
  pm: PackageManager
  /** Package name; default: the folder's name. */
  name?: string
  /** Written to .env (mode 0600) when given. */
  token?: string
  /** Allow a non-empty folder (files are still never overwritten). */
  force?: boolean
  /** Where the template folders are (tests); default: the package's templates/. */
  templatesRoot?: string
}

export interface ProjectPlan {
  /** Absolute path of the project folder. */
  dir: string
  /** The folder as shown to the user (relative to cwd when inside it). */
  displayDir: string
  name: string
  template: TemplateInfo
  pm: PackageManager
  hasToken: boolean
  copy: CopyPlan
}

/** Entries that do not make a folder "non-empty". */
const HARMLESS = new Set(['.git', '.DS_Store', 'Thumbs.db', '.idea', '.vscode'])

async function entriesOf(dir: string): Promise<string[] | undefined> {
  let info
  try {
    info = await stat(dir)
  } catch {
    return undefined // does not exist yet: fine
  }
  if (!info.isDirectory())
    throw new UsageError(`"${dir}" exists and is not a folder.`, 'Pass the path of a new or empty folder.')
  return (await readdir(dir)).filter((e) => !HARMLESS.has(e))
}

function showList(items: string[], max = 8): string {
  return items.length > max ? `${items.slice(0, max).join(', ')} and ${items.length - max} more` : items.join(', ')
}

/**
 * Validate everything and read the template into memory. Writes nothing: every refusal
 * (bad name, bad token, non-empty folder, a file that would be overwritten) happens here.
 */
export async function planProject(options: InitOptions): Promise<ProjectPlan> {
  const cwd = options.cwd ?? process.cwd()
  const root = options.templatesRoot ?? templatesRoot()
  const template = templateInfo(options.template)
  if (!template)
    throw new UsageError(`Unknown template "${options.template}".`, `Choose one of: ${TEMPLATE_NAMES.join(', ')}.`)
  if (!listTemplates(root).some((t) => t.name === template.name))
    throw new FixableError(`The ${template.name} template is missing from ${root}.`, {
      fix: 'Reinstall bot-cli (its templates/ folder is incomplete).',
    })

  const show = (path: string) => {
    const r = relative(cwd, path)
    return r === '' ? '.' : r.startsWith('..') ? path : r
  }
  await checkTargetDir(options.dir, cwd, show)
  const dir = resolve(cwd, options.dir)
  const displayDir = show(dir)

  const name = options.name ?? basename(dir)
  const problem = packageNameProblem(name)
  if (problem) {
    const suggestion = suggestPackageName(name)
    throw new UsageError(
      `"${name}" is not a valid package name${options.name ? '' : ' (it comes from the folder name)'}: ${problem}.`,
      options.name
        ? `Pass a name like --name ${suggestion}.`
        : `Use a folder named like "${suggestion}", or keep the folder and pass --name ${suggestion}.`,
    )
  }

  if (options.token !== undefined) {
    const shape = inspectToken(options.token)
    if (!shape.valid)
      throw new UsageError(
        `--token does not look like a bot token: ${shape.problem}.`,
        'Copy the token exactly as @BotFather shows it (123456789:AA…).',
      )
  }

  const entries = await entriesOf(dir)
  if (entries && entries.length > 0 && !options.force)
    throw new FixableError(`${displayDir} is not empty (${showList(entries)}).`, {
      code: 'dir_not_empty',
      exitCode: 2, // bad input: nothing was written
      fix: 'Choose a new folder, or pass --force to add the template next to the files there (nothing is ever overwritten).',
    })

  const extra = options.token ? [{path: '.env', content: Buffer.from(`BOT_TOKEN=${options.token}\n`), mode: 0o600}] : []
  const vars = {
    name,
    framework: template.framework,
    template: template.name,
    pm: options.pm,
    run: pmCommands(options.pm).run,
    install: pmCommands(options.pm).install.join(' '),
    botCli: botCliSpec(),
  }
  const copy = await planCopy(templateLayers(template.name, root), dir, vars, extra)
  await checkNoEscapingLinks(
    dir,
    copy.files.map((f) => f.path),
    show,
  )
  if (copy.conflicts.length > 0)
    throw new FixableError(
      `${copy.conflicts.length} file(s) of the template already exist in ${displayDir}: ${showList(copy.conflicts)}.`,
      {
        code: 'file_exists',
        exitCode: 2,
        fix: 'bot init never overwrites a file: move those away, or choose another folder.',
      },
    )

  return {dir, displayDir, name, template, pm: options.pm, hasToken: Boolean(options.token), copy}
}

/**
 * How a new project depends on bot-cli (its tests use `bot-cli/emulator`, its scripts `bot`): the
 * running CLI's exact version when it was installed from a registry (its folder is inside a
 * node_modules), else `file:` + the folder of this checkout, so that the install works before
 * bot-cli is published.
 */
export function botCliSpec(root = fileURLToPath(new URL('../../', import.meta.url))): string {
  const real = realpathSync(root)
  const {version, botCli} = JSON.parse(readFileSync(join(real, 'package.json'), 'utf8')) as {
    version: string
    botCli?: {published?: boolean}
  }
  // Until bot-cli is on the registry (package.json "botCli": {"published": false}), an installed
  // copy (`npm i -g ./bot-cli-*.tgz`) is referenced by its folder too: its version would be a 404.
  return real.split(sep).includes('node_modules') && botCli?.published !== false ? version : `file:${real}`
}

/** Write the planned files; all or nothing (a failed write removes what was written). */
export async function writeProject(plan: ProjectPlan): Promise<string[]> {
  return writePlan(plan.copy)
}

/** A word as a POSIX shell reads it: as is when safe, else in single quotes. */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`
}

export interface NextStep {
  command: string
  note?: string
}

/** What to run after `bot init`, in order. */
export function nextSteps(plan: Pick<ProjectPlan, 'displayDir' | 'pm' | 'hasToken'>, installed: boolean): NextStep[] {
  const steps: NextStep[] = []
  if (plan.displayDir !== '.') steps.push({command: `cd ${shellQuote(plan.displayDir)}`})
  if (!installed) steps.push({command: pmCommands(plan.pm).install.join(' '), note: 'install the dependencies'})
  if (!plan.hasToken)
    steps.push({
      command: 'cp .env.example .env',
      note: 'then put the token from @BotFather (https://t.me/BotFather) in BOT_TOKEN',
    })
  steps.push({command: 'bot dev', note: 'run it against Telegram in webhook mode, behind a tunnel'})
  steps.push({
    command: 'bot dev --offline',
    note: 'or try it with no token and no network: type messages in the terminal',
  })
  return steps
}
