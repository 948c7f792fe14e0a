/** A Bot API failure as a doctor finding: the shared explanation, minus advice to run the doctor. */
import {explainApiError} from '../telegram/explain.js'
import type {BotApiError} from '../telegram/index.js'

export function explainForDoctor(error: BotApiError, apiRoot: string): {message: string; fix?: string} {
  const e = explainApiError(error, apiRoot)
  if (error.kind === 'timeout')
    return {
      message: e.message,
      fix: `The server at ${apiRoot} accepted the connection but did not answer: check that server (or a proxy or firewall in between) and try again.`,
    }
  if (error.kind === 'network')
    return {
      message: e.message,
      fix: e.fix?.replace(/;? ?`bot doctor` checks reachability\.?/, '.').replace(/\.\.$/, '.'),
    }
  return e
}
