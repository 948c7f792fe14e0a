/**
 * The doctor's one door to `bot dev`'s session state (src/dev/state.ts, owned by the dev
 * session). Kept behind this module so the doctor depends on these names only.
 */
export {isPidAlive, listStates, readState, stateDir, type SessionState} from '../dev/state.js'
export {isOrphan} from '../dev/orphan.js'
export {TUNNEL_MARKER_ENV} from '../tunnel/types.js'
