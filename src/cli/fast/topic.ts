/**
 * A topic's help (`bot webhook --help`, `bot trigger -h`) the way oclif 4's Help.showTopicHelp
 * prints it: the topic's description, `USAGE $ bot TOPIC COMMAND`, then its commands. For
 * bin/run.js's fast path (no @oclif/core); test/lib/fast-start.e2e.test.ts compares the bytes with
 * oclif's. Returns undefined (oclif answers) for anything it does not reproduce: sub-topics, a
 * topic without a description of its own in package.json, templates, wide characters.
 * Dependency-free, like start.ts.
 */
import {Renderer, narrow, summaryLine, template, type ManifestCommand} from './render.js'

export interface TopicHelpEnv {
  bin: string
  separator: string
  width: number
  bold: boolean
}

export function topicHelp(
  name: string,
  description: string | undefined,
  commands: ManifestCommand[],
  env: TopicHelpEnv,
): string | undefined {
  if (!description) return undefined
  const visible = commands.filter((c) => !c.hidden)
  const under = visible.filter((c) => c.id.startsWith(`${name}:`))
  const depth = name.split(':').length
  // Sub-topics (a command two levels down) get a TOPICS section: left to oclif.
  if (under.length === 0 || under.some((c) => c.id.split(':').length !== depth + 1)) return undefined
  if (under.some((c) => (c.aliases?.length ?? 0) > 0 || (c.hiddenAliases?.length ?? 0) > 0)) return undefined
  const byId = (a: ManifestCommand, b: ManifestCommand) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  const sorted = [...under].sort(byId).filter((c, i, all) => i === 0 || all[i - 1].id !== c.id)
  const rows: Array<[string, string | undefined]> = sorted.map((c) => [
    c.id.replaceAll(':', env.separator),
    summaryLine(c, env.bin),
  ])
  const rendered = template(description, env.bin)
  const texts = [rendered, ...rows.flatMap(([l, r]) => [l, r ?? ''])]
  if (texts.some((t) => t.includes('<%') || !narrow(t))) return undefined

  const r = new Renderer(env.width, env.bold)
  const [summary, ...more] = rendered.split('\n')
  const rest = more.join('\n')
  const head = [
    summary,
    r.section('USAGE', `$ ${env.bin} ${`${name}:COMMAND`.replaceAll(':', env.separator)}`),
    rest ? r.section('DESCRIPTION', r.wrap(rest)) : '',
  ]
    .filter(Boolean)
    .join('\n\n')
  return `${head}\n\n${r.section('COMMANDS', r.renderList(rows, 2))}\n\n`
}
