/** getFile. */
import {randomBytes} from 'node:crypto'
import type {Handler} from './core.js'
import {badRequest} from '../errors.js'

export const getFile: Handler = (_bot, params) => {
  const id = params.get('file_id') ?? ''
  if (id === '') throw badRequest('file_id not specified')
  return {
    result: {
      file_id: id,
      file_unique_id: randomBytes(8).toString('base64url'),
      file_size: 1024,
      file_path: `documents/file_${id.slice(0, 8)}`,
    },
  }
}

export const FILE_METHODS: Record<string, Handler> = {getfile: getFile}
