/**
 * End to end, for each template: `bot init` generates a project in a temporary folder and installs
 * its dependencies for real with npm (from the registry; the shared npm cache makes repeats fast;
 * the three installs, builds and Dockerfile runs happen in parallel, once, and every test of the
 * file reuses them).
 *
 * - The project builds with its own TypeScript, and its own `npm test` (vitest against the emulator)
 *   passes right after `bot init`; so do its chat scripts (test/*.chat.yml) with `npx bot test`, as its
 *   GitHub workflow runs them.
 * - The Dockerfile's steps, by hand (docker cannot run here; test/init/dockerfile.ts): the build
 *   stage's install and compile, the run stage's `npm ci --omit=dev`, then `node dist/main.js`
 *   serves /health and, on SIGTERM, finishes the work in flight before it exits.
 * - At scale: Redis, three instances in webhook mode and nginx in front (round robin,
 *   `proxy_next_upstream error timeout`): /count gives 1…6 in order although nginx spread the
 *   updates over all three instances (its access log says which served each), the count goes on
 *   through the others when one stops, nothing is left pending, a handler that throws is
 *   acknowledged (200, no retry) and the chat's next message is answered, /health says 503 when
 *   Redis is gone.
 * - Under `bot dev` against the emulator, in webhook mode through the relay and the loopback
 *   localtunnel server, and in polling mode: /start gets its reply, a message is echoed, a forged
 *   request straight to the bot's port is refused (401/403, nothing handled), and Ctrl-C exits
 *   cleanly with the webhook deleted.
 *
 * Slower than the rest (an npm install per template); CI runs it with `npm test`. Needs a build
 * (`npm run build`), the npm registry (or a warm npm cache), redis-server and nginx (.ci/run
 * installs them).
 */
import {execFile, spawn} from 'node:child_process'
import {existsSync, readFileSync, rmSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {promisify} from 'node:util'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {BotApiEmulator} from '../../src/emulator/index.js'
import {cliEnv, startCli, type CliResult, type RunningCli} from '../support/cli.js'
import {startLocaltunnelServer, type LocaltunnelServer} from '../support/lt-server.js'
import {startRedis} from '../support/redis.js'
import {setWebhook, startCluster, startInstance, type Cluster} from './cluster.js'
import {runDockerfileSteps, type DockerfileRun} from './dockerfile.js'
import {TEMPLATES, fakeUpdate, init, tempDir, type Template} from './support.js'
import {freePort} from '../../src/lib/free-port.js'
import {waitFor} from '../support/wait.js'

const run = promisify(execFile)
/**
 * The set-up's bound: three registry installs, builds and Dockerfile steps at once end with their processes; the bound
 * only stops a hung one. At load 25 on 2 cores they took more than 5 minutes.
 */
const INSTALL_TIMEOUT_MS = 10 * 60_000
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm'

let emu: BotApiEmulator
let lt: LocaltunnelServer
let root: string
const dirs = {} as Record<Template, string>
const images = {} as Record<Template, DockerfileRun>
/** Every process a test started, stopped in afterAll whatever happened. */
const cleanups: (() => Promise<unknown>)[] = []

/** npm in a project, with none of the test runner's variables (a nested vitest must not see them). */
function npm(args: string[], cwd: string, timeout = 180_000) {
  return run(NPM, args, {
    cwd,
    timeout,
    env: cliEnv({env: {npm_config_prefer_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false'}}),
  })
}

beforeAll(async () => {
  // Retries and holds 100 times faster, but Telegram's 60 s webhook read timeout kept: scaled to 600 ms, a loaded
  // machine's bot (or nginx in front of three) can outlast it, and the update given up on is retried and counted twice.
  emu = await BotApiEmulator.start({timeScale: 0.01, webhookReadTimeoutMs: 6_000_000})
  lt = await startLocaltunnelServer()
  root = tempDir('bot-init-e2e-')
  // The three installs and builds in parallel: most of the time is spent waiting for npm.
  await Promise.all(
    TEMPLATES.map(async (template) => {
      const dir = join(root, `${template}-e2e-bot`)
      // A real install from the registry; prefer-offline reuses the shared cache when it has the packages.
      // Three installs at once on a loaded machine take minutes: the run gets the whole set-up's bound.
      const r = await init(
        [dir, '--template', template, '--pm', 'npm', '--no-git', '--yes', '--json'],
        {npm_config_prefer_offline: 'true'},
        undefined,
        INSTALL_TIMEOUT_MS,
      )
      expect(r.code, `bot init ${template} failed:\n${r.stdout}\n${r.stderr}`).toBe(0)
      expect(JSON.parse(r.stdout)).toMatchObject({installed: true, template})
      await npm(['run', 'build'], dir)
      dirs[template] = dir
      // Every RUN and COPY of the Dockerfile, carried out in stage folders at another depth than the
      // project (a lock file that only works where it was made would fail here, as in an image).
      images[template] = await runDockerfileSteps(
        dir,
        join(root, 'docker', template),
        cliEnv({env: {npm_config_prefer_offline: 'true'}}),
      )
    }),
  )
}, INSTALL_TIMEOUT_MS)

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {})
  await lt?.close().catch(() => {})
  await emu?.stop().catch(() => {})
  if (root) rmSync(root, {recursive: true, force: true})
})

function assertNoToken(result: Pick<CliResult, 'stdout' | 'stderr'>, token: string): void {
  const secret = token.split(':')[1]
  for (const text of [result.stdout, result.stderr]) {
    expect(text.includes(token) || text.includes(secret), `the token appears in the output:\n${text}`).toBe(false)
  }
}

describe.each(TEMPLATES)('template %s', (template) => {
  let dir: string
  let stateDir: string

  beforeAll(() => {
    dir = dirs[template]
    stateDir = join(root, `state-${template}`)
  })

  it('builds with its own TypeScript, and its own npm test passes right after bot init', async () => {
    expect(existsSync(join(dir, 'dist', 'main.js'))).toBe(true)
    const {stdout} = await npm(['test'], dir)
    expect(stdout).toMatch(/Tests\s+6 passed/) // the template's own tests, /buy paid through the emulator among them
  }, 180_000)

  it('its chat scripts pass with npx bot test, as its GitHub workflow runs them (JUnit report)', async () => {
    // The workflow's own line: .github/workflows/test.yml runs exactly this after the unit tests.
    expect(readFileSync(join(dir, '.github', 'workflows', 'test.yml'), 'utf8')).toContain(
      'npx bot test --reporter junit --output test-results.xml',
    )
    const env = cliEnv({env: {PATH: `${dirname(process.execPath)}:/usr/bin:/bin`}})
    const {stdout} = await run('npx', ['bot', 'test', '--reporter', 'junit', '--output', 'test-results.xml'], {
      cwd: dir,
      env,
      timeout: 180_000,
    })
    expect(stdout).toMatch(/2 passed/)
    const xml = readFileSync(join(dir, 'test-results.xml'), 'utf8')
    expect(xml).toMatch(/<testsuites name="bot test" tests="2" failures="0"/)
    expect(xml).toContain('name="test/start.chat.yml"')
    expect(xml).toContain('name="test/buy.chat.yml"')
  }, 200_000)

  it('npm run dev:offline finds bot in its dev dependencies', async () => {
    // No `bot` on PATH: only node_modules/.bin (bot-cli) can provide it.
    const env = cliEnv({env: {PATH: `${dirname(process.execPath)}:/usr/bin:/bin`}})
    const child = spawn(NPM, ['run', '-s', 'dev:offline'], {cwd: dir, env, stdio: ['pipe', 'pipe', 'pipe']})
    let out = ''
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d))
    child.stderr.resume()
    child.stdin.end('/count\n/count\n')
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
    clearTimeout(timer)
    expect(code, out).toBe(0)
    expect(out).toMatch(/bot › Count: 1[\s\S]*bot › Count: 2/)
  }, 90_000)

  it('runs as the Dockerfile runs it (its steps by hand): /health; SIGTERM finishes the work in flight', async () => {
    const image = images[template] // the Dockerfile's steps, carried out in beforeAll
    expect(image.ran.some((r) => r.startsWith('npm ci --omit=dev'))).toBe(true)
    expect(image.cmd).toEqual(['node', 'dist/main.js'])
    expect(image.user).toBe('node')
    expect(existsSync(join(image.dir, 'node_modules', 'typescript'))).toBe(false) // dev dependencies left out
    expect(existsSync(join(image.dir, 'src'))).toBe(false) // only the compiled code
    expect(readFileSync(join(dir, '.dockerignore'), 'utf8')).toMatch(/^\.env$/m)

    const redis = await startRedis()
    cleanups.push(() => redis.stop())
    const {token} = emu.createBot({username: `${template}_image_bot`})
    const port = await freePort()
    const bot = await startInstance(image.dir, {
      ...image.env,
      BOT_TOKEN: token,
      BOT_API_ROOT: emu.apiRoot,
      BOT_MODE: 'webhook',
      PORT: String(port),
      WEBHOOK_PATH: '/hook',
      WEBHOOK_SECRET: 'image-secret',
      REDIS_URL: redis.url,
      BOT_TEST_COMMANDS: '1',
    })
    cleanups.push(() => bot.stop())
    const health = await fetch(`http://127.0.0.1:${port}/health`)
    expect(health.status).toBe(200)
    expect(await health.json()).toEqual({ok: true})

    // SIGTERM while work is in flight: /slow answers at once and finishes 1.5 s after the update
    // was acknowledged; the stop waits for it, then closes Redis and exits 0.
    await setWebhook(emu.apiRoot, token, `http://127.0.0.1:${port}/hook`, 'image-secret')
    const chatId = 8008
    const slow = emu.sendUserMessage(token, {text: '/slow 1500', chatId})
    expect((await emu.waitForBotMessage(token, {chatId, timeoutMs: 15_000})).params.text).toBe('Working on it…')
    await waitFor(() => !emu.pendingUpdates(token).some((u) => u.update_id === slow.update_id), {
      what: 'the /slow update acknowledged',
    })
    expect(emu.sentMessages(token, {chatId}).map((c) => c.params.text)).not.toContain('Done.')
    expect(await bot.stop()).toEqual({code: 0, signal: null})
    expect(bot.process.output()).toMatch(/SIGTERM: stopping/)
    expect(emu.sentMessages(token, {chatId}).map((c) => c.params.text)).toEqual(['Working on it…', 'Done.'])
    assertNoToken({stdout: bot.process.output(), stderr: ''}, token)
    await redis.stop()
  }, 180_000)

  it('scales: three instances behind nginx share sessions in Redis; errors are acknowledged; /health follows Redis', async () => {
    const {token} = emu.createBot({username: `${template}_scale_bot`})
    const cluster: Cluster = await startCluster({
      dir,
      token,
      apiRoot: emu.apiRoot,
      instances: 3,
      redis: true,
      nginx: true,
      env: {BOT_TEST_COMMANDS: '1'},
    })
    cleanups.push(() => cluster.stop())
    const deliveries: {updateId: number; ok: boolean; status?: number}[] = []
    const onDelivery = (d: {token: string; updateId: number; ok: boolean; status?: number}) => {
      if (d.token === token) deliveries.push(d)
    }
    emu.on('delivery', onDelivery)
    try {
      await setWebhook(emu.apiRoot, token, cluster.webhookUrl, cluster.secret)
      const chatId = 7007
      const posts = () => cluster.nginx!.accessLog().filter((e) => e.method === 'POST')

      // Six /count at once: the emulator keeps one update of a chat in flight at a time, so they
      // arrive in order, each at whichever instance nginx picks.
      for (let i = 0; i < 6; i++) emu.sendUserMessage(token, {text: '/count', chatId})
      for (let n = 1; n <= 6; n++)
        expect((await emu.waitForBotMessage(token, {chatId, timeoutMs: 15_000})).params.text).toBe(`Count: ${n}`)
      await waitFor(() => posts().length >= 6, {what: 'six POSTs in the access log'})
      const served = new Set(
        posts()
          .slice(0, 6)
          .map((e) => e.upstreams.at(-1)),
      )
      expect(served, JSON.stringify(posts())).toEqual(new Set(cluster.instances.map((i) => `127.0.0.1:${i.port}`)))
      expect(posts().every((e) => e.status === 200)).toBe(true)

      // One instance stops (a deploy, a crash): nginx skips it and the count goes on.
      const [gone, ...rest] = cluster.instances
      expect(await gone.stop()).toEqual({code: 0, signal: null})
      expect(gone.process.output()).toMatch(/SIGTERM: stopping/)
      for (let i = 0; i < 2; i++) emu.sendUserMessage(token, {text: '/count', chatId})
      for (const n of [7, 8])
        expect((await emu.waitForBotMessage(token, {chatId, timeoutMs: 15_000})).params.text).toBe(`Count: ${n}`)
      await waitFor(() => posts().length >= 8, {what: 'eight POSTs in the access log'})
      const after = posts().slice(6, 8)
      expect(after.every((e) => e.status === 200)).toBe(true)
      // Round robin came back to the stopped instance once: refused, so nginx passed the update on.
      const stopped = `127.0.0.1:${gone.port}`
      expect(after.map((e) => e.upstreams.at(-1))).not.toContain(stopped)
      expect(
        after.filter((e) => e.upstreams[0] === stopped).map((e) => e.upstreamStatuses),
        JSON.stringify(after),
      ).toEqual([['502', '200']])
      await waitFor(() => emu.pendingUpdates(token).length === 0, {what: 'no update left pending'})

      // A handler that throws: logged, acknowledged with 200 once (no retry), and the chat goes on.
      const failing = emu.sendUserMessage(token, {text: '/fail', chatId})
      await waitFor(() => deliveries.some((d) => d.updateId === failing.update_id), {what: 'the /fail delivery'})
      emu.sendUserMessage(token, {text: 'still answered', chatId})
      expect((await emu.waitForBotMessage(token, {chatId, timeoutMs: 15_000})).params.text).toBe('still answered')
      expect(deliveries.filter((d) => d.updateId === failing.update_id)).toEqual([
        expect.objectContaining({ok: true, status: 200}),
      ])
      await waitFor(() => posts().length >= 10, {what: 'ten POSTs in the access log'})
      expect(posts()[8].status).toBe(200)
      await waitFor(() => rest.some((i) => i.process.output().includes('deliberate failure')), {
        what: 'the error in an instance log',
      })
      await waitFor(() => emu.pendingUpdates(token).length === 0, {what: 'no update left pending'})
      expect(emu.getWebhookInfo(token).last_error_message).toBeUndefined()

      // Through nginx the health check is green; without Redis an instance says 503.
      expect((await fetch(`${cluster.nginx!.url}/health`)).status).toBe(200)
      await cluster.redis!.stop()
      await waitFor(async () => (await fetch(`http://127.0.0.1:${rest[0].port}/health`)).status === 503, {
        what: '/health 503 without Redis',
        timeout: 15_000,
      })
      // An update that finds the session storage gone is not acknowledged (500): Telegram keeps it.
      const stranded = emu.sendUserMessage(token, {text: '/count', chatId})
      await waitFor(() => deliveries.find((d) => d.updateId === stranded.update_id), {
        what: 'a delivery of the update without Redis',
        timeout: 15_000,
      })
      expect(deliveries.find((d) => d.updateId === stranded.update_id)).toMatchObject({ok: false, status: 500})
      expect(emu.pendingUpdates(token).map((u) => u.update_id)).toContain(stranded.update_id)
      await fetch(`${emu.apiRoot}/bot${token}/deleteWebhook`, {method: 'POST'}) // stop the retries; the update stays queued
      for (const i of rest) expect(await i.stop()).toEqual({code: 0, signal: null})
      for (const i of cluster.instances) assertNoToken({stdout: i.process.output(), stderr: ''}, token)
    } finally {
      emu.off('delivery', onDelivery)
      await cluster.stop()
    }
  }, 180_000)

  function startDev(token: string, args: string[]): RunningCli {
    return startCli(['dev', '--api-root', emu.apiRoot, '--no-watch', ...args], {
      cwd: dir,
      timeoutMs: 90_000,
      env: {BOT_TOKEN: token, BOT_STATE_DIR: stateDir},
    })
  }

  async function stopWithCtrlC(dev: RunningCli): Promise<CliResult> {
    dev.kill('SIGINT')
    const result = await dev.exited
    expect(result.timedOut, result.stderr).toBe(false)
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0)
    // The bot itself stopped gracefully (its signal handler ran), not killed.
    expect(result.stdout + result.stderr).toMatch(/SIG(INT|TERM): stopping/)
    return result
  }

  it('webhook mode through the relay and the tunnel: /start, echo, forged requests refused, Ctrl-C deletes the webhook', async () => {
    const {token} = emu.createBot({username: `${template}_e2e_hook_bot`})
    const port = await freePort()
    const dev = startDev(token, ['--tunnel-host', lt.url, '--port', String(port)])
    let result: CliResult | undefined
    try {
      await dev.waitForOutput(/Ready: updates reach the bot/, {timeoutMs: 60_000})
      const webhook = emu.webhook(token)
      expect(webhook?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//) // the loopback tunnel's public URL
      expect(webhook?.secretToken).toBeTruthy()

      const chatId = 3003
      emu.sendUserMessage(token, {text: '/start', chatId, firstName: 'Grace'})
      const hello = await emu.waitForBotMessage(token, {chatId, timeoutMs: 10_000})
      expect(String(hello.params.text)).toContain('Hello, Grace')

      emu.sendUserMessage(token, {text: 'through the tunnel', chatId})
      await emu.waitForBotMessage(token, {
        chatId,
        timeoutMs: 10_000,
        predicate: (c) => c.params.text === 'through the tunnel',
      })

      // Forged requests straight to the bot's own port, on the path it serves: the webhook's path (the
      // bot prints it masked, a secret; the emulator knows the URL).
      const started = /webhook: POST (\S+) on port (\d+)/.exec(dev.stdout() + dev.stderr())
      expect(started?.[2]).toBe(String(port))
      const path = new URL(webhook!.url).pathname
      expect(started?.[1]).toBe(`${path.slice(0, path.indexOf('/', 1) + 5)}…`)
      const forgedChat = 6660
      for (const headers of [{}, {'x-telegram-bot-api-secret-token': 'not-the-secret'}] as Record<string, string>[]) {
        const res = await fetch(`http://127.0.0.1:${port}${path}`, {
          method: 'POST',
          headers: {'content-type': 'application/json', ...headers},
          body: fakeUpdate(42, forgedChat, 'forged'),
        })
        expect([401, 403]).toContain(res.status)
      }
      // And through the public URL without the secret: the relay refuses it.
      const viaTunnel = await fetch(webhook!.url, {
        method: 'POST',
        headers: {'content-type': 'application/json'},
        body: fakeUpdate(43, forgedChat, 'forged'),
      })
      expect(viaTunnel.status).toBe(401)
      expect(emu.sentMessages(token, {chatId: forgedChat})).toEqual([])

      await waitFor(() => emu.pendingUpdates(token).length === 0, {what: 'every update acknowledged'})
    } finally {
      result = await stopWithCtrlC(dev)
    }
    expect(emu.webhook(token)).toBeUndefined()
    expect(emu.getWebhookInfo(token).url).toBe('')
    assertNoToken(result, token)
  }, 120_000)

  it('polling mode: /start, echo, Ctrl-C exits cleanly with no webhook set', async () => {
    const {token} = emu.createBot({username: `${template}_e2e_poll_bot`})
    const dev = startDev(token, ['--mode', 'polling'])
    let result: CliResult | undefined
    try {
      await dev.waitForOutput(/Ready: the bot runs on long polling/, {timeoutMs: 60_000})
      const chatId = 4004
      emu.sendUserMessage(token, {text: '/start', chatId, firstName: 'Linus'})
      const hello = await emu.waitForBotMessage(token, {chatId, timeoutMs: 10_000})
      expect(String(hello.params.text)).toContain('Hello, Linus')
      emu.sendUserMessage(token, {text: 'polled and echoed', chatId})
      await emu.waitForBotMessage(token, {
        chatId,
        timeoutMs: 10_000,
        predicate: (c) => c.params.text === 'polled and echoed',
      })
    } finally {
      result = await stopWithCtrlC(dev)
    }
    expect(emu.webhook(token)).toBeUndefined()
    expect(emu.pendingUpdates(token)).toEqual([])
    assertNoToken(result, token)
  }, 120_000)
})
