/**
 * getFile (Client.cpp process_get_file_query, JsonFile): the file's File object with a relative `file_path` by kind
 * (`photos/file_0.jpg`), as the cloud answers, in both of the emulator's modes; /file/bot<token>/<file_path> serves the
 * bytes (http/server.ts).
 */
import type {Handler} from './core.js'
import {badRequest} from '../errors.js'
import {parseFileId} from '../state/file-ids.js'

/** The cloud's download limit (Client.h MAX_DOWNLOAD_FILE_SIZE = 20 MiB); the local server has none. */
const MAX_DOWNLOAD = 20 << 20

export const getFile: Handler = (bot, params, core) => {
  const id = params.get('file_id') ?? ''
  if (id === '') throw badRequest('file_id not specified')
  const parsed = parseFileId(id)
  if (parsed.kind === 'url' || parsed.kind === 'error') throw badRequest('invalid file_id')
  const file = parsed.kind === 'emulator' && parsed.botId === bot.id ? bot.files.get(id) : undefined
  // a well-formed id this bot does not have (another bot's, a production one, a forgotten one): the download fails
  if (!file || !bot.files.available(file)) throw badRequest('wrong file_id or the file is temporarily unavailable')
  if (!core.local && file.size > MAX_DOWNLOAD) throw badRequest('file is too big')
  return {
    result: {
      file_id: file.fileId,
      file_unique_id: file.uniqueId,
      ...(file.size > 0 ? {file_size: file.size} : {}),
      file_path: bot.files.pathOf(file),
    },
  }
}

export const FILE_METHODS: Record<string, Handler> = {getfile: getFile}
