import {existsSync, readdirSync, statSync} from 'node:fs'
import {fileURLToPath} from 'node:url'
import {join} from 'node:path'

/** The templates `bot init` offers, in the order a prompt lists them (the first is the default). */
export const TEMPLATES = [
  {
    name: 'grammy',
    framework: 'grammY',
    description: 'grammY: modern, well documented, many plugins',
    docs: 'https://grammy.dev',
  },
  {
    name: 'gramio',
    framework: 'GramIO',
    description: 'GramIO: type-safe, fast, runs on Node, Bun and Deno',
    docs: 'https://gramio.dev',
  },
  {
    name: 'telegraf',
    framework: 'Telegraf',
    description: 'Telegraf: the long-standing classic',
    docs: 'https://telegraf.js.org',
  },
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

/** Files every template has (HTTP server, config, tsconfig, …), kept once in `templates/_shared/`. */
export function sharedTemplateDir(root = templatesRoot()): string {
  return join(root, '_shared')
}

/** The folders a project is made from, in order: the shared files, then the template's own. */
export function templateLayers(name: TemplateName, root = templatesRoot()): string[] {
  return [sharedTemplateDir(root), templateDir(name, root)]
}

/** The templates that exist on disk (a broken install would miss some, or the shared files). */
export function listTemplates(root = templatesRoot()): TemplateInfo[] {
  if (!existsSync(root) || !existsSync(sharedTemplateDir(root))) return []
  const present = new Set(readdirSync(root).filter((d) => statSync(join(root, d)).isDirectory()))
  return TEMPLATES.filter((t) => present.has(t.name))
}
