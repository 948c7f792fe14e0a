import {existsSync, readdirSync, statSync} from 'node:fs'
import {fileURLToPath} from 'node:url'
import {join} from 'node:path'

/** The templates `bot init` offers, in the order a prompt lists them (the first is the default). */
export const TEMPLATES = [
  {name: 'grammy', framework: 'grammY', description: 'grammY: modern, well documented, many plugins', docs: 'https://grammy.dev'},
  {name: 'gramio', framework: 'GramIO', description: 'GramIO: type-safe, fast, runs on Node, Bun and Deno', docs: 'https://gramio.dev'},
  {name: 'telegraf', framework: 'Telegraf', description: 'Telegraf: the long-standing classic', docs: 'https://telegraf.js.org'},
] as const

export type TemplateName = (typeof TEMPLATES)[number]['name']
export type TemplateInfo = (typeof TEMPLATES)[number]

export const TEMPLATE_NAMES = TEMPLATES.map((t) => t.name) as TemplateName[]
export const DEFAULT_TEMPLATE: TemplateName = 'grammy'

/** Where the template folders live: `templates/` at the package root (next to dist/ and src/). */
export function templatesRoot(): string {
  return fileURLToPath(new URL('../../templates/', import.meta.url))
}

export function templateInfo(name: string): TemplateInfo | undefined {
  return TEMPLATES.find((t) => t.name === name)
}

export function templateDir(name: TemplateName, root = templatesRoot()): string {
  return join(root, name)
}

/** The templates that exist on disk (a broken install would miss some). */
export function listTemplates(root = templatesRoot()): TemplateInfo[] {
  if (!existsSync(root)) return []
  const present = new Set(readdirSync(root).filter((d) => statSync(join(root, d)).isDirectory()))
  return TEMPLATES.filter((t) => present.has(t.name))
}
