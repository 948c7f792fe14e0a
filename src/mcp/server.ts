/**
 * `bot mcp`: a Model Context Protocol server on stdio through which a coding agent drives the bot of this project
 * and reads what it did. It attaches to the `bot dev` session running here (found as `bot trigger` finds it: its
 * control record in the state folder) and talks to it over the session's control port (src/control/server.ts);
 * with `offline` it starts `bot dev --offline` itself (offline-child.ts) and stops it when it ends.
 *
 * Tools: every user action of the emulator's table (src/emulator/actions: send_message, press_button, vote_poll,
 * inline_query, pay_invoice, react…; send_media as send_file, which reads a file), read_chat, list_updates,
 * get_update, list_calls, trigger, replay, restart_bot, bot_output, inject_fault, run_chat_script. Resources: docs/*.md and the session's status. Nothing but the protocol goes
 * to stdout; what the background session prints goes to `log` (stderr). No secret reaches a tool result: the
 * session redacts its token, webhook secret and path, inspector key and restore secret from every answer.
 */
import {readdirSync, readFileSync} from 'node:fs'
import {dirname, extname, join, resolve} from 'node:path'
import type {Readable, Writable} from 'node:stream'

import {McpServer} from '@modelcontextprotocol/sdk/server/mcp.js'
import {StdioServerTransport} from '@modelcontextprotocol/sdk/server/stdio.js'
import {z} from 'zod'

import {findSession} from '../control/client.js'
import {describeEntry, describeResult} from '../control/result-lines.js'
import {requestSession} from '../control/session-request.js'
import {fixtureRequest} from '../control/trigger-request.js'
import {sessionActions} from '../control/online-actions.js'
import {isJsonObject} from '../control/requests.js'
import type {
  ActionOutcome,
  CallRow,
  ChatScriptReport,
  ControlRecord,
  OutputLine,
  RestartOutcome,
  SessionStatus,
  Transcript,
  TriggerRequest,
  TriggerResult,
} from '../control/protocol.js'
import {FixableError, messageOf} from '../lib/errors.js'
import {BoundedFileError, readBoundedFile} from '../lib/bounded-file.js'
import type {UpdateEntry} from '../inspector/types.js'
import {
  callsText,
  entryLines,
  outcomeText,
  outputText,
  scriptText,
  statusText,
  transcriptText,
  updatesText,
} from './format.js'
import {OfflineChild} from './offline-child.js'
import {objectFromJsonSchema} from './schema.js'

export interface McpServerOptions {
  /** The project folder (where the session runs). */
  cwd: string
  /** BOT_TOKEN when set: its bot id picks the session, as `bot trigger` does. */
  token?: string
  /** Start `bot dev --offline` in the background with these extra arguments (and `--` with the bot's command). */
  offline?: {args: string[]}
  /** The state folder of control records (default: the usual one). */
  stateDir?: string
  version: string
  /** The package's docs folder (docs/*.md become resources). */
  docsDir: string
  input?: Readable
  output?: Writable
  /** Human-readable lines (stderr). */
  log: (line: string) => void
  /** How long a tool waits for the background offline session to be ready (default 60 s). */
  startupMs?: number
}

/** The largest file send_file reads (Telegram's bots may receive up to 20 MB through getFile). */
const MAX_FILE_BYTES = 20 * 1024 * 1024

/** The largest chat script read (the control port's body cap). */
const MAX_SCRIPT_BYTES = 1024 * 1024 - 1024

const PHOTO_EXTENSIONS = new Set(['.jpg', '.jpeg', '.png', '.webp'])

/** Default descriptions of the faults an agent most often wants (Telegram's own texts). */
const FAULT_TEXTS: Record<number, (retryAfter?: number) => string> = {
  400: () => 'Bad Request: chat not found',
  403: () => 'Forbidden: bot was blocked by the user',
  429: (retryAfter) => `Too Many Requests: retry after ${retryAfter ?? 5}`,
  500: () => 'Internal Server Error',
  502: () => 'Bad Gateway',
}

class ToolError extends Error {
  constructor(
    message: string,
    readonly fix?: string,
  ) {
    super(message)
  }
}

/** Where the tools' requests go: the session of this project, found on each call (it may start later). */
class SessionLink {
  readonly #o: McpServerOptions
  readonly child: OfflineChild | undefined

  constructor(o: McpServerOptions) {
    this.#o = o
    if (o.offline)
      this.child = new OfflineChild({
        cwd: o.cwd,
        args: o.offline.args,
        log: o.log,
        ...(o.stateDir ? {stateDir: o.stateDir} : {}),
      })
  }

  async record(): Promise<ControlRecord> {
    if (this.child) {
      try {
        return await this.child.session(this.#o.startupMs ?? 60_000)
      } catch (error) {
        throw new ToolError(messageOf(error), 'Fix the bot (see the lines above), then restart `bot mcp`.')
      }
    }
    try {
      return findSession({token: this.#o.token, cwd: this.#o.cwd, ...(this.#o.stateDir ? {dir: this.#o.stateDir} : {})})
    } catch {
      throw new ToolError(
        `No running \`bot dev\` session for this project (${this.#o.cwd}): start \`bot dev\` or \`bot dev --offline\` there, or run \`bot mcp --offline\` to have one started.`,
      )
    }
  }

  async get<T>(path: string): Promise<T> {
    return (await requestSession(await this.record(), 'GET', path)) as T
  }

  async post<T>(path: string, body: unknown = {}): Promise<T> {
    return (await requestSession(await this.record(), 'POST', path, body)) as T
  }
}

function errorText(error: unknown): string {
  if (error instanceof ToolError) return error.fix ? `${error.message}\nFix: ${error.fix}` : error.message
  if (error instanceof FixableError) return error.fix ? `${error.message}\nFix: ${error.fix}` : error.message
  return `Failed: ${messageOf(error)}`
}

function query(params: Record<string, string | number | boolean | undefined>): string {
  const search = new URLSearchParams()
  for (const [key, value] of Object.entries(params)) if (value !== undefined) search.set(key, String(value))
  const text = search.toString()
  return text ? `?${text}` : ''
}

const limit = (max: number, fallback: number) =>
  z.number().int().min(1).max(max).optional().describe(`how many (default ${fallback}, at most ${max})`)
const chatId = z.number().int().describe("the chat (default: the newest chat, or the user's private chat)").optional()

/** Build the MCP server with its tools and resources (not yet connected). */
export function createMcpServer(o: McpServerOptions, link = new SessionLink(o)): McpServer {
  const server = new McpServer({name: 'bot', version: o.version})

  const tool = <S extends z.ZodObject>(
    name: string,
    description: string,
    schema: S,
    run: (args: z.infer<S>) => Promise<string>,
  ) => {
    server.registerTool(name, {description, inputSchema: schema}, (async (args: z.infer<S>) => {
      try {
        return {content: [{type: 'text' as const, text: await run(args)}]}
      } catch (error) {
        return {content: [{type: 'text' as const, text: errorText(error)}], isError: true}
      }
    }) as never)
  }

  // ------------------------------------------------------------- the user actions of the table
  for (const action of sessionActions(true)) {
    if (action.name === 'send_media') continue // send_file reads the file
    tool(
      action.name,
      `The user ${action.description.replace(/^the user /, '')}. Returns the updates the bot got, its answer, its failed calls explained and what it showed. Offline: the emulator's user; online (webhook mode): the synthetic update \`bot trigger\` sends.`,
      objectFromJsonSchema(action.params),
      async (args) => outcomeText(await link.post<ActionOutcome>(`/actions/${action.name}`, args)),
    )
  }

  const media = sessionActions(true).find((a) => a.name === 'send_media')
  const kinds = ((media?.params as {properties?: {kind?: {enum?: string[]}}})?.properties?.kind?.enum ?? [
    'photo',
    'document',
  ]) as [string, ...string[]]
  tool(
    'send_file',
    'The user sends a file (a photo, document, video, audio, voice, animation, sticker or video note): its path (relative to the project) or its bytes in base64. The bot can getFile and download it.',
    z.strictObject({
      path: z.string().optional().describe('the file, relative to the project folder'),
      data: z.string().optional().describe('the bytes, base64 (instead of path)'),
      filename: z.string().optional().describe('its name (default: from path)'),
      kind: z
        .enum(kinds)
        .optional()
        .describe('what it is sent as (default: photo for JPEG, PNG and WebP, else document)'),
      caption: z.string().optional(),
      chat_id: chatId,
      user_id: z.number().int().min(1).optional().describe('the user who sends it'),
    }),
    async (args) => {
      if ((args.path === undefined) === (args.data === undefined))
        throw new ToolError(
          'send_file needs exactly one of path and data.',
          'Pass {"path": "cat.jpg"} or {"data": "<base64>", "filename": "cat.jpg"}.',
        )
      let data = args.data
      let filename = args.filename
      if (args.path !== undefined) {
        const file = resolve(o.cwd, args.path)
        try {
          data = (await readBoundedFile(file, MAX_FILE_BYTES)).toString('base64')
        } catch (error) {
          if (!(error instanceof BoundedFileError)) throw error
          throw new ToolError(
            error.reason === 'too-large' ? `${args.path} is over ${MAX_FILE_BYTES / 1024 / 1024} MB.` : error.message,
            'Give the path of a regular file in the project (at most 20 MB).',
          )
        }
        filename ??= file.split('/').at(-1)
      }
      const kind = args.kind ?? (PHOTO_EXTENSIONS.has(extname(filename ?? '').toLowerCase()) ? 'photo' : 'document')
      const input = {
        kind,
        file: {data, ...(filename ? {filename} : {})},
        ...(args.caption !== undefined ? {caption: args.caption} : {}),
        ...(args.chat_id !== undefined ? {chat_id: args.chat_id} : {}),
        ...(args.user_id !== undefined ? {user_id: args.user_id} : {}),
      }
      return outcomeText(await link.post<ActionOutcome>('/actions/send_media', input))
    },
  )

  // ------------------------------------------------------------- what the session recorded
  tool(
    'read_chat',
    "A chat's transcript as the user sees it, oldest first: `you › …` for the user, `bot #ID › …` for the bot's messages (with their message ids) and their buttons as `[ Yes ] [ No ]`, failed calls as `✗ method failed: …` with the explanation.",
    z.strictObject({chat_id: chatId, limit: limit(1000, 50)}),
    async (args) =>
      transcriptText(
        await link.get<Transcript>(`/transcript${query({chat_id: args.chat_id, limit: args.limit ?? 50})}`),
      ),
  )

  tool(
    'list_updates',
    "The updates the session delivered to the bot, newest first: update_id, time, type, chat, a preview, the bot's answer status, how many Bot API calls it made (and how many failed).",
    z.strictObject({
      limit: limit(1000, 20),
      chat_id: chatId,
      type: z.string().optional().describe('only this update type (message, callback_query…)'),
    }),
    async (args) =>
      updatesText(
        (
          await link.get<{updates: UpdateEntry[]}>(
            `/updates${query({limit: args.limit ?? 20, chat_id: args.chat_id, type: args.type})}`,
          )
        ).updates,
      ),
  )

  tool(
    'get_update',
    "One recorded update in full: the Update JSON, the bot's answer, every Bot API call it made with its parameters, result or error and explanation.",
    z.strictObject({update_id: z.number().int().min(0).describe('the update_id (list_updates shows them)')}),
    async (args) => {
      const entry = await link.get<UpdateEntry>(`/updates/${args.update_id}`)
      return [...entryLines(entry), '', JSON.stringify(entry, null, 2)].join('\n')
    },
  )

  tool(
    'list_calls',
    "The bot's Bot API calls, newest first: method, ok or Telegram's error code and description, and for a known error its explanation (why it happens, what to do), the update it was made for, its parameters.",
    z.strictObject({
      method: z.string().optional().describe('only this method (sendMessage…; any case)'),
      failed_only: z.boolean().optional().describe('only the calls that failed'),
      limit: limit(1000, 20),
    }),
    async (args) =>
      callsText(
        (
          await link.get<{calls: CallRow[]}>(
            `/calls${query({method: args.method, failed_only: args.failed_only ? 1 : undefined, limit: args.limit ?? 20})}`,
          )
        ).calls,
      ),
  )

  tool(
    'bot_output',
    "The bot's last output lines (stdout and stderr, across restarts), stack traces included, oldest first.",
    z.strictObject({limit: limit(500, 50)}),
    async (args) =>
      outputText((await link.get<{lines: OutputLine[]}>(`/output${query({limit: args.limit ?? 50})}`)).lines),
  )

  // ------------------------------------------------------------- trigger, replay, restart, faults
  tool(
    'trigger',
    'Send the bot any update `bot trigger` sends: type message (set text), callback (set data), update (set update: a whole Update), or a fixture (photo, edited-message, inline, poll-answer, reaction, join-request, member-joined, member-left, member-blocked, member-unblocked, payment, business-message, web-app-data, subscription, widget-query, stopped-generation) with `set` overrides as {"path": value} (docs/trigger.md lists the paths).',
    z.strictObject({
      type: z.string().min(1).describe('message, callback, update, or a fixture type'),
      set: z
        .record(z.string(), z.unknown())
        .optional()
        .describe('fields to change: {"message_reaction.new_reaction.0.emoji": "🔥"}'),
      chat_id: z.number().int().optional().describe('the chat (default: the last one the session saw)'),
      user_id: z.number().int().min(1).optional().describe('the user (default: the last one the session saw)'),
    }),
    async (args) => {
      const set = args.set ?? {}
      const who = {
        ...(args.chat_id !== undefined ? {chatId: args.chat_id} : {}),
        ...(args.user_id !== undefined ? {userId: args.user_id} : {}),
      }
      let request: TriggerRequest
      if (args.type === 'message') {
        if (typeof set.text !== 'string' || set.text === '')
          throw new ToolError('trigger message needs the text.', 'Pass {"type": "message", "set": {"text": "/start"}}.')
        request = {kind: 'message', text: set.text, ...who}
      } else if (args.type === 'callback') {
        if (typeof set.data !== 'string' || set.data === '')
          throw new ToolError(
            'trigger callback needs the callback_data.',
            'Pass {"type": "callback", "set": {"data": "like:yes"}}.',
          )
        const messageId = set.message_id
        request = {kind: 'callback', data: set.data, ...(typeof messageId === 'number' ? {messageId} : {}), ...who}
      } else if (args.type === 'update') {
        const update = set.update
        if (!isJsonObject(update))
          throw new ToolError(
            'trigger update needs the Update.',
            'Pass {"type": "update", "set": {"update": {"edited_message": {…}}}}.',
          )
        request = {kind: 'update', update}
      } else {
        const sets = Object.entries(set).map(
          ([path, value]) => `${path}=${typeof value === 'string' ? value : JSON.stringify(value)}`,
        )
        request = await fixtureRequest(args.type, {sets, ...who})
      }
      const result = await link.post<TriggerResult>('/trigger', request)
      return resultText(result)
    },
  )

  tool(
    'replay',
    'Deliver a recorded update again (a new delivery the bot sees even though it answered that update_id).',
    z.strictObject({
      update_id: z.number().int().min(0).optional().describe('the update (list_updates); default: the newest'),
    }),
    async (args) => {
      const entry = await link.post<UpdateEntry>('/replay', {updateId: args.update_id ?? 'last'})
      return entryLines(entry).join('\n')
    },
  )

  tool(
    'restart_bot',
    'Restart the bot process now (as saving a file does; updates are held meanwhile) and wait until it takes updates again.',
    z.strictObject({}),
    async () => {
      const r = await link.post<RestartOutcome>('/restart')
      return `✓ The bot restarted${r.pid ? ` (pid ${r.pid})` : ''} and takes updates again after ${r.ms} ms (restart ${r.restarts} of this session).`
    },
  )

  tool(
    'inject_fault',
    "Offline: the next calls of a Bot API method fail with an error, as Telegram's would (a flood limit, a blocked user, a server error), to see how the bot copes. description defaults to Telegram's text for 400, 403, 429, 500 and 502.",
    z.strictObject({
      method: z
        .string()
        .regex(/^[A-Za-z]{1,64}$/)
        .describe('the Bot API method, e.g. sendMessage'),
      error_code: z.number().int().min(400).max(599).describe('e.g. 429, 403, 400, 502'),
      description: z.string().min(1).max(1000).optional().describe("Telegram's error text"),
      retry_after: z.number().int().min(1).optional().describe('429: seconds to wait (parameters.retry_after)'),
      migrate_to_chat_id: z.number().int().optional().describe('400: the supergroup a group became'),
      times: z.number().int().min(1).max(1000).optional().describe('how many calls fail (default 1)'),
    }),
    async (args) => {
      const description = args.description ?? FAULT_TEXTS[args.error_code]?.(args.retry_after)
      if (!description)
        throw new ToolError(
          `No default description for error ${args.error_code}.`,
          'Pass description: the error text Telegram would send.',
        )
      const r = await link.post<{text?: string}>('/faults', {...args, description})
      return r.text ?? '✓ Fault injected.'
    },
  )

  tool(
    'run_chat_script',
    'Offline: play a chat script (*.chat.yml: what users do and what the bot must answer; docs/testing.md) against the bot, by its path (relative to the project) or its text. Answers as `bot test` does: passed, or each failure with its file:line, what was expected, what the bot did and the diff.',
    z.strictObject({
      path: z.string().optional().describe('the script file, relative to the project folder'),
      text: z.string().optional().describe("the script's YAML (instead of path)"),
    }),
    async (args) => {
      if ((args.path === undefined) === (args.text === undefined))
        throw new ToolError(
          'run_chat_script needs exactly one of path and text.',
          'Pass {"path": "test/start.chat.yml"} or {"text": "steps:\n  - user: /start\n  - bot: /Hi/"}.',
        )
      let text = args.text ?? ''
      // A script given as text is named so in its lines (`<text>:3  bot: …`).
      let file = '<text>'
      let baseDir = o.cwd
      if (args.path !== undefined) {
        const full = resolve(o.cwd, args.path)
        try {
          text = (await readBoundedFile(full, MAX_SCRIPT_BYTES)).toString('utf8')
        } catch (error) {
          if (!(error instanceof BoundedFileError)) throw error
          throw new ToolError(
            error.reason === 'too-large' ? `${args.path} is over 1 MiB.` : error.message,
            'Give the path of a chat script in the project (e.g. test/start.chat.yml).',
          )
        }
        file = args.path
        baseDir = dirname(full)
      }
      const report = await link.post<ChatScriptReport>('/script', {text, file, base_dir: baseDir})
      return scriptText(report)
    },
  )

  // ------------------------------------------------------------- resources
  let docs: string[] = []
  try {
    docs = readdirSync(o.docsDir).filter((f) => f.endsWith('.md'))
  } catch {
    // an install without docs: no doc resources
  }
  for (const file of docs) {
    const uri = `bot://docs/${file}`
    server.registerResource(
      `docs/${file}`,
      uri,
      {title: `docs/${file}`, description: `The bot CLI's documentation: ${file}`, mimeType: 'text/markdown'},
      async () => ({contents: [{uri, mimeType: 'text/markdown', text: readFileSync(join(o.docsDir, file), 'utf8')}]}),
    )
  }
  server.registerResource(
    'session-status',
    'bot://session/status',
    {
      title: 'Session status',
      description: 'The running session: offline or online, mode, the bot, its process, URLs (no secrets), counts.',
      mimeType: 'text/plain',
    },
    async (uri) => {
      let text: string
      try {
        const status = await link.get<SessionStatus>('/status')
        text = `${statusText(status)}\n\n${JSON.stringify(status, null, 2)}`
      } catch (error) {
        text = errorText(error)
      }
      return {contents: [{uri: uri.href, mimeType: 'text/plain', text}]}
    },
  )
  return server
}

function resultText(result: TriggerResult): string {
  const entries = result.flow?.entries ?? [result]
  const lines = entries.flatMap((e) => entryLines(e))
  if (result.flow?.text) lines.push(result.flow.text)
  return lines.join('\n') || describeResult(result).lines.join('\n') || describeEntry(result).lines.join('\n')
}

/**
 * Run `bot mcp` until the client goes away (stdin closes) or a signal: connect over stdio, and on the way out stop
 * the background offline session it started.
 */
export async function runMcpServer(o: McpServerOptions): Promise<void> {
  const link = new SessionLink(o)
  const server = createMcpServer(o, link)
  const transport = new StdioServerTransport(o.input ?? process.stdin, o.output ?? process.stdout)
  const input = o.input ?? process.stdin
  let finish!: () => void
  const finished = new Promise<void>((resolve) => {
    finish = resolve
  })
  transport.onclose = () => finish()
  input.once('end', () => finish())
  input.once('close', () => finish())
  const onSignal = () => finish()
  process.once('SIGTERM', onSignal)
  process.once('SIGINT', onSignal)
  process.once('SIGHUP', onSignal)
  try {
    await server.connect(transport)
    o.log(
      o.offline
        ? 'bot mcp: serving MCP on stdio; starting `bot dev --offline` in the background.'
        : 'bot mcp: serving MCP on stdio; the tools use the `bot dev` session running for this project.',
    )
    // A child that ends by itself (its bot failed to start) is said once; the tools then say why.
    void link.child?.exited.then(() => {
      const gone = link.child?.gone
      if (gone) o.log(gone)
    })
    await finished
  } finally {
    process.off('SIGTERM', onSignal)
    process.off('SIGINT', onSignal)
    process.off('SIGHUP', onSignal)
    await link.child?.stop()
    await server.close().catch(() => {})
  }
}
