/**
 * Open a URL in the user's browser: $BROWSER when set (the first of its `:`-separated commands, `%s`
 * standing for the URL, else the URL appended), else the platform's opener (xdg-open, open, start).
 * Detached and unwaited: the session never depends on it. Resolves with how it went, for one line.
 */
import {spawn} from 'node:child_process'
import {messageOf} from '../lib/errors.js'

export interface Opened {
  ok: boolean
  /** The program that was run (its first word). */
  program: string
  error?: string
}

export function openerCommand(
  url: string,
  env: NodeJS.ProcessEnv = process.env,
  platform = process.platform,
): string[] {
  const browser = env.BROWSER?.split(':').find((c) => c.trim() !== '')
  if (browser) {
    const words = browser.trim().split(/\s+/)
    return words.some((w) => w.includes('%s')) ? words.map((w) => w.replaceAll('%s', url)) : [...words, url]
  }
  if (platform === 'darwin') return ['open', url]
  if (platform === 'win32') return ['cmd', '/c', 'start', '""', url]
  return ['xdg-open', url]
}

export function openUrl(url: string, env: NodeJS.ProcessEnv = process.env): Promise<Opened> {
  const [program, ...args] = openerCommand(url, env)
  return new Promise((resolve) => {
    let child
    try {
      child = spawn(program, args, {detached: true, stdio: 'ignore'})
    } catch (error) {
      return resolve({ok: false, program, error: messageOf(error)})
    }
    child.once('error', (error: NodeJS.ErrnoException) =>
      resolve({ok: false, program, error: error.code === 'ENOENT' ? 'not found' : error.message}),
    )
    child.once('spawn', () => {
      child.unref()
      resolve({ok: true, program})
    })
  })
}
