/**
 * Docker cannot run here, so the e2e test carries out a Dockerfile's steps by hand: each stage in
 * its own folder (the image's WORKDIR), COPY from the build context (the project) or from an
 * earlier stage, RUN through `sh -c` with the stage's ENV, and the final CMD returned for the test
 * to start. Enough for the templates' Dockerfile (FROM … AS, WORKDIR, COPY [--from], RUN, ENV,
 * USER, EXPOSE, HEALTHCHECK, STOPSIGNAL, CMD); anything else is an error.
 */
import {execFile} from 'node:child_process'
import {cpSync, mkdirSync, readFileSync} from 'node:fs'
import {basename, join} from 'node:path'
import {promisify} from 'node:util'

const run = promisify(execFile)

export interface DockerfileRun {
  /** The last stage's folder (the image's WORKDIR). */
  dir: string
  env: Record<string, string>
  cmd: string[]
  user?: string
  /** The RUN lines executed, in order. */
  ran: string[]
}

/** Instructions, with `\` continuations joined and comments dropped. */
export function parseDockerfile(text: string): {op: string; args: string}[] {
  const joined = text.replace(/\\\n/g, ' ')
  return joined
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const m = /^(\S+)\s+(.*)$/.exec(l)
      if (!m) throw new Error(`cannot read Dockerfile line: ${l}`)
      return {op: m[1].toUpperCase(), args: m[2]}
    })
}

export async function runDockerfileSteps(
  context: string,
  stagesRoot: string,
  env: NodeJS.ProcessEnv,
): Promise<DockerfileRun> {
  const stages = new Map<string, string>()
  let dir = ''
  let stageEnv: Record<string, string> = {}
  let cmd: string[] = []
  let user: string | undefined
  const ran: string[] = []
  let n = 0
  for (const {op, args} of parseDockerfile(readFileSync(join(context, 'Dockerfile'), 'utf8'))) {
    switch (op) {
      case 'FROM': {
        const name = /\sAS\s+(\S+)/i.exec(args)?.[1] ?? `stage${n}`
        dir = join(stagesRoot, `${n++}-${name}`, 'app')
        mkdirSync(dir, {recursive: true})
        stages.set(name, dir)
        stageEnv = {}
        break
      }
      case 'WORKDIR':
      case 'EXPOSE':
      case 'HEALTHCHECK':
      case 'STOPSIGNAL':
        break
      case 'USER':
        user = args
        break
      case 'ENV':
        for (const [, k, v] of args.matchAll(/(\w+)=(\S+)/g)) stageEnv[k] = v
        break
      case 'COPY': {
        const words = args.split(/\s+/)
        const from = words[0].startsWith('--from=') ? stages.get(words.shift()!.slice('--from='.length)) : undefined
        const dest = words.pop()!
        for (const src of words) {
          const source = from ? join(from, src.replace(/^\/app\/?/, '')) : join(context, src)
          const target = dest.endsWith('/') || words.length > 1 ? join(dir, dest, basename(src)) : join(dir, dest)
          cpSync(source, target, {recursive: true})
        }
        break
      }
      case 'RUN':
        ran.push(args)
        await run('sh', ['-c', args], {cwd: dir, env: {...env, ...stageEnv}, timeout: 240_000})
        break
      case 'CMD':
        cmd = JSON.parse(args) as string[]
        break
      default:
        throw new Error(`Dockerfile instruction ${op} is not handled by this test`)
    }
  }
  return {dir, env: stageEnv, cmd, user, ran}
}
