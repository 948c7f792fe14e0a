/** config: where the token came from and its shape, .env kept out of git, Node version, api root. */
import {execFile} from 'node:child_process'
import {basename, dirname} from 'node:path'

import {DEFAULT_API_ROOT, inspectToken} from '../../telegram/index.js'
import type {Check, CheckResult, CheckStatus, DoctorContext} from '../types.js'
import {worst} from '../status.js'

const MIN_NODE: [number, number] = [20, 6] // package.json engines: `node --import tsx` needs module.register (20.6)

interface Part {
  status: CheckStatus
  line: string
  fix?: string
}

function git(args: string[], cwd: string): Promise<{code: number; stdout: string}> {
  return new Promise((resolve) => {
    execFile('git', args, {cwd, timeout: 5000, windowsHide: true}, (error, stdout) => {
      if (!error) return resolve({code: 0, stdout})
      const code = typeof (error as {code?: unknown}).code === 'number' ? (error as {code: number}).code : -1
      resolve({code, stdout: String(stdout ?? '')})
    })
  })
}

function tokenPart(ctx: DoctorContext): Part {
  if (!ctx.token)
    return {
      status: 'fail',
      line: 'token: none (no --token flag, no BOT_TOKEN in the environment or in .env)',
      fix: 'Get a token from @BotFather (/newbot or /mybots → API Token) and put BOT_TOKEN=… in .env in this folder.',
    }
  const where =
    ctx.tokenSource === '.env' && ctx.dotenvPath
      ? `from ${ctx.dotenvPath}`
      : `from ${ctx.tokenSource === 'flag' ? '--token' : 'the environment (BOT_TOKEN)'}`
  const shape = inspectToken(ctx.token)
  if (!shape.valid)
    return {
      status: 'fail',
      line: `token: ${where}, malformed: ${shape.problem}`,
      fix: 'Copy the token again from @BotFather (/mybots → your bot → API Token): it looks like 123456789:AA… with nothing around it.',
    }
  return {status: 'ok', line: `token: ${where}, well-formed (bot id ${shape.botId})`}
}

/** A .env holding a token must not be committed: check it is ignored (and not tracked) when inside a git work tree. */
async function dotenvPart(ctx: DoctorContext): Promise<Part | undefined> {
  if (!ctx.dotenvPath) return undefined
  const dir = dirname(ctx.dotenvPath)
  const name = basename(ctx.dotenvPath)
  const inside = await git(['rev-parse', '--is-inside-work-tree'], dir)
  if (inside.code === -1) return {status: 'ok', line: `${name}: git not found, so not checked for being ignored`}
  if (inside.code !== 0 || inside.stdout.trim() !== 'true')
    return {status: 'ok', line: `${name}: not inside a git repository`}
  const tracked = await git(['ls-files', '--error-unmatch', '--', name], dir)
  if (tracked.code === 0)
    return {
      status: 'fail',
      line: `${name}: committed to git (a token in a pushed repository is leaked)`,
      fix: `Run \`git rm --cached ${name}\`, add ${name} to .gitignore, and if the repository was ever pushed, revoke the token in @BotFather (/revoke) and put the new one in ${name}.`,
    }
  const ignored = await git(['check-ignore', '-q', '--', name], dir)
  if (ignored.code === 0) return {status: 'ok', line: `${name}: ignored by git`}
  return {
    status: 'warn',
    line: `${name}: NOT ignored by git (one \`git add .\` away from committing the token)`,
    fix: `Add a line "${name}" to .gitignore.`,
  }
}

function nodePart(): Part {
  const version = process.versions.node
  const [major, minor] = version.split('.').map(Number)
  const okVersion = major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1])
  if (okVersion) return {status: 'ok', line: `Node.js ${version} (needs ${MIN_NODE.join('.')} or later)`}
  return {
    status: 'fail',
    line: `Node.js ${version} is too old (needs ${MIN_NODE.join('.')} or later)`,
    fix: 'Install Node.js 20 LTS or later (https://nodejs.org, or `nvm install 20`).',
  }
}

function apiRootPart(ctx: DoctorContext): Part {
  const source =
    ctx.apiRootSource === 'default'
      ? 'default'
      : ctx.apiRootSource === 'flag'
        ? '--api-root'
        : ctx.apiRootSource === '.env'
          ? 'BOT_API_ROOT in .env'
          : 'BOT_API_ROOT'
  if (ctx.apiRoot === DEFAULT_API_ROOT) return {status: 'ok', line: `api root: ${ctx.apiRoot} (${source})`}
  let url: URL
  try {
    url = new URL(ctx.apiRoot)
  } catch {
    return {
      status: 'fail',
      line: `api root: "${ctx.apiRoot}" is not a URL (${source})`,
      fix: 'Use e.g. http://127.0.0.1:8081 for a local Bot API server, or unset BOT_API_ROOT.',
    }
  }
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname) || url.hostname.startsWith('127.')
  if (url.protocol === 'http:' && !loopback)
    return {
      status: 'warn',
      line: `api root: ${ctx.apiRoot} (${source}): plain http to another host sends the token unencrypted`,
      fix: 'Put the Bot API server behind https, or reach it over a private network or an SSH tunnel.',
    }
  return {
    status: 'ok',
    line: `api root: ${ctx.apiRoot} (${source}; not api.telegram.org: a local Bot API server or an emulator)`,
  }
}

export const configCheck: Check = {
  id: 'config',
  title: 'Configuration',
  async run(ctx): Promise<CheckResult> {
    const parts = [tokenPart(ctx), await dotenvPart(ctx), nodePart(), apiRootPart(ctx)].filter(
      (p): p is Part => p !== undefined,
    )
    const status = worst(parts.map((p) => p.status))
    const fixes = parts.filter((p) => p.status !== 'ok' && p.fix).map((p) => p.fix!)
    return {status, detail: parts.map((p) => p.line).join('\n'), fix: fixes.length > 0 ? fixes.join('\n') : undefined}
  },
}
