/**
 * The doctor's one door to `bot dev`'s session state (src/session-store/state.ts, owned by the dev
 * session). Kept behind this module so the doctor depends on these names only.
 */
export {isPidAlive, listStates, readState, stateDir, type SessionState} from '../session-store/state.js'
export {isOrphan} from '../dev/orphan.js'
export {TUNNEL_MARKER_ENV} from '../tunnel/types.js'
