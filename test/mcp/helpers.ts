/** `bot mcp` driven by the MCP SDK's own client over stdio, as a coding agent's host runs it. */
import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js'

import {BIN} from '../support/paths.js'
import {cliEnv} from '../support/cli.js'
import {fixture} from '../dev/helpers.js'

export interface McpRun {
  client: Client
  /** Every tool result's text so far (the secret scan reads them all). */
  results: string[]
  /** What `bot mcp` wrote on stderr. */
  stderr: () => string
  /** Errors of the client's transport (a line on stdout that is not the protocol would be one). */
  transportErrors: Error[]
  /** Call a tool; its text (isError: the text starts with "ERROR: "). */
  call(name: string, args?: Record<string, unknown>): Promise<{text: string; isError: boolean}>
  close(): Promise<void>
  pid: number | null
}

/** Start `bot mcp ARGS` in `cwd` with the SDK's StdioClientTransport and connect the SDK's Client. */
export async function startMcp(
  args: string[],
  o: {cwd: string; env?: Record<string, string | undefined>},
): Promise<McpRun> {
  const env = cliEnv({env: o.env})
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', ...args],
    cwd: o.cwd,
    env: env as Record<string, string>,
    stderr: 'pipe',
  })
  let stderr = ''
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8')
  })
  const transportErrors: Error[] = []
  transport.onerror = (error) => transportErrors.push(error)
  const client = new Client({name: 'bot-mcp-test', version: '1.0.0'})
  await client.connect(transport)
  const results: string[] = []
  return {
    client,
    results,
    stderr: () => stderr,
    transportErrors,
    pid: transport.pid,
    async call(name, args = {}) {
      const result = (await client.callTool({name, arguments: args}, undefined, {timeout: 60_000})) as {
        content: Array<{type: string; text?: string}>
        isError?: boolean
      }
      const text = result.content.map((c) => c.text ?? '').join('\n')
      results.push(text)
      return {text, isError: Boolean(result.isError)}
    },
    async close() {
      await client.close()
    },
  }
}

/** A project folder whose package.json runs the mcp test bot (with the update types its tests need). */
export function mcpProject(): {dir: string; stateDir: string; secretsFile: string; photo: string} {
  const dir = mkdtempSync(join(tmpdir(), 'bot-mcp-test-'))
  // Outside the project: a JSON file written at its top would restart the bot (the watcher).
  const secretsFile = join(mkdtempSync(join(tmpdir(), 'bot-mcp-secrets-')), 'secrets.json')
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({
      name: 'mcp-test-bot',
      private: true,
      bot: {
        dev: {
          command: ['node', fixture('mcp-bot.mjs')],
          allowedUpdates: [
            'message',
            'edited_message',
            'callback_query',
            'message_reaction',
            'poll_answer',
            'inline_query',
            'chosen_inline_result',
            'pre_checkout_query',
            'my_chat_member',
            'chat_member',
          ],
        },
      },
    }),
  )
  // A 2×2 PNG.
  const photo = join(dir, 'cat.png')
  writeFileSync(
    photo,
    Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP8z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==',
      'base64',
    ),
  )
  return {dir, stateDir: join(dir, 'state'), secretsFile, photo}
}
