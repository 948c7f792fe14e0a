/**
 * Module hooks (node:module `register`, see preload.cts): each ES module the bot loads from the
 * project (a file: URL under BOT_DEV_IMPORTS_ROOT, not in node_modules) is appended once to the
 * BOT_DEV_IMPORTS file. They only look: every specifier and source is passed on unchanged.
 */
import {appendFileSync} from 'node:fs'
import {sep} from 'node:path'
import {fileURLToPath} from 'node:url'

let file: string | undefined
let under = ''
const seen = new Set<string>()

export function initialize(data: {file?: string; root?: string} | undefined): void {
  if (!data?.file || !data.root) return
  file = data.file
  under = data.root.endsWith(sep) ? data.root : data.root + sep
}

function note(url: string | undefined): void {
  if (!file || typeof url !== 'string' || !url.startsWith('file:') || seen.has(url)) return
  seen.add(url)
  try {
    const path = fileURLToPath(url)
    if (path.startsWith(under) && !path.includes(`${sep}node_modules${sep}`)) appendFileSync(file, `${path}\n`)
  } catch {
    // a URL that is no path, or a file that cannot be written: the bot goes on
  }
}

type Next<C, R> = (specifier: string, context?: C) => R | Promise<R>

export async function resolve<C, R extends {url: string}>(specifier: string, context: C, next: Next<C, R>): Promise<R> {
  const resolved = await next(specifier, context)
  note(resolved?.url)
  return resolved
}

export async function load<C, R>(url: string, context: C, next: Next<C, R>): Promise<R> {
  note(url)
  return next(url, context)
}
