export interface GitResult {
  /** A repository was created by us. */
  initialized: boolean
  /** An initial commit was made. */
  committed: boolean
  /** Why nothing (or no commit) was done. */
  note?: string
}

/**
 * `git init` + an initial commit in `dir`. Skipped when git is missing or `dir` is already
 * inside a work tree (a monorepo). A commit that fails (no user.name/email) leaves the
 * repository initialized with nothing committed. Never throws.
 */
export async function initGit(dir: string): Promise<GitResult> {
  const {execa} = await import('execa')
  const git = (...args: string[]) => execa('git', args, {cwd: dir, reject: false, stdin: 'ignore'})
  const version = await git('--version')
  if (version.failed) return {initialized: false, committed: false, note: 'git is not installed'}
  const inside = await git('rev-parse', '--is-inside-work-tree')
  if (!inside.failed && inside.stdout.trim() === 'true')
    return {initialized: false, committed: false, note: 'already inside a git repository'}
  const init = await git('init', '--quiet')
  if (init.failed) return {initialized: false, committed: false, note: `git init failed: ${init.stderr.trim()}`}
  const add = await git('add', '--all')
  const commit = add.failed ? add : await git('commit', '--quiet', '--no-verify', '-m', 'Initial commit from bot init')
  if (commit.failed)
    return {
      initialized: true,
      committed: false,
      note: 'no initial commit (set git user.name and user.email, then commit)',
    }
  return {initialized: true, committed: true}
}
