/** Every check, in the order the report lists them. */
import type {Check} from '../types.js'
import {configCheck} from './config.js'
import {deliveryCheck} from './delivery.js'
import {localPollersCheck} from './local-pollers.js'
import {pollerProbeCheck} from './poller-probe.js'
import {reachabilityCheck} from './reachability.js'
import {sessionsCheck} from './sessions.js'
import {tokenCheck} from './token.js'

export const CHECKS: readonly Check[] = [
  configCheck,
  reachabilityCheck,
  tokenCheck,
  deliveryCheck,
  sessionsCheck,
  localPollersCheck,
  pollerProbeCheck,
]
