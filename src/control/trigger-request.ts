/**
 * A `bot trigger` request as the command line writes it, checked here as the session will check it (so a bad one is
 * exit 2, nothing sent): the types `bot trigger --list` shows, and a fixture with its argument, --set values,
 * template file and photo.
 */
import {UsageError} from '../lib/errors.js'
import {isRefusal} from '../lib/refusal.js'
import {
  applySets,
  FIXTURE_TYPES,
  fixturePath,
  fullPath,
  isFixtureType,
  loadFixture,
  parseSetArgument,
  setValue,
  templateFromFile,
} from './fixtures.js'
import type {FixtureSet, TriggerRequest} from './protocol.js'
import {readJsonFile, readPhoto, usage} from './request-files.js'
import {checkTriggerRequest} from './requests.js'

/** A trigger request checked as the session will check it: exit 2 when it would be refused. */
export function checkRequest(request: TriggerRequest): TriggerRequest {
  const checked = checkTriggerRequest(request)
  if ('error' in checked)
    throw new UsageError(
      checked.error.replace(/^./, (c) => c.toUpperCase()),
      `${checked.fix} Nothing was sent.`,
    )
  return checked.request
}

/** What `bot trigger --list` shows: each type, how to call it, what it sends and its fixture. */
export function triggerTypes(bin: string): Array<{
  type: string
  usage: string
  summary: string
  fixture?: string
  update?: Record<string, unknown>
}> {
  const builtIn = [
    {
      type: 'message',
      usage: `${bin} trigger message TEXT`,
      summary: 'A user sends a text message (a /command gets its entity).',
    },
    {
      type: 'callback',
      usage: `${bin} trigger callback DATA`,
      summary: "A user presses the inline button with that callback_data (on the bot's newest message that has it).",
    },
    {
      type: 'update',
      usage: `${bin} trigger update FILE.json`,
      summary: 'Any Update, written as JSON, delivered as written.',
    },
  ]
  const usages: Record<string, string> = {
    photo: 'photo [FILE]',
    'edited-message': 'edited-message [TEXT]',
    inline: 'inline [QUERY]',
    'poll-answer': 'poll-answer [OPTION]',
    reaction: 'reaction [EMOJI]',
    'member-joined': 'member joined',
    'member-left': 'member left',
    'member-blocked': 'member blocked',
    'member-unblocked': 'member unblocked',
    'business-message': 'business-message [TEXT]',
    'web-app-data': 'web-app-data [DATA]',
    subscription: 'subscription [STATE]',
    'widget-query': 'widget-query [DATA]',
    'shared-widget-query': 'shared-widget-query [DATA]',
    'stopped-generation': 'stopped-generation [DRAFT_ID]',
  }
  const fixtures = FIXTURE_TYPES.map((type) => {
    const fixture = loadFixture(type)
    return {
      type,
      usage: `${bin} trigger ${usages[type] ?? type}`,
      summary: fixture.summary,
      fixture: fixturePath(type),
      update: fixture.update,
    }
  })
  return [...builtIn, ...fixtures]
}

/**
 * `bot trigger TYPE [ARGUMENT] [--set path=value…] [--file FILE]` as a request: the argument and each
 * --set read and written into the template as the session will (so a bad one is exit 2 here,
 * nothing sent); photo's FILE read (at most 5 MB of JPEG, PNG, GIF or WebP).
 */
export async function fixtureRequest(
  type: string,
  o: {argument?: string; sets: string[]; file?: string; chatId?: number; userId?: number},
): Promise<TriggerRequest> {
  if (!isFixtureType(type))
    throw usage({error: `Unknown trigger type "${type}".`, fix: `Use one of: ${FIXTURE_TYPES.join(', ')}.`})
  const fixture = loadFixture(type)
  let template: {update: Record<string, unknown>; defaults?: Record<string, unknown>} | undefined
  if (o.file !== undefined) {
    const read = templateFromFile(await readJsonFile(o.file), o.file === '-' ? 'stdin' : o.file)
    if ('error' in read) throw usage(read)
    template = read
  }
  let update = (template ?? fixture).update
  let photo: {base64: string; name?: string} | undefined
  const raw: Array<{path: string[]; raw: string; what: string}> = []
  if (o.argument !== undefined && fixture.argument?.file) photo = await readPhoto(o.argument)
  else if (o.argument !== undefined && fixture.argument?.set)
    raw.push({path: fixture.argument.set.split('.'), raw: o.argument, what: fixture.argument.name.toUpperCase()})
  for (const text of o.sets) {
    const parsed = parseSetArgument(text)
    if ('error' in parsed) throw usage(parsed)
    raw.push({...parsed, what: `--set ${parsed.path.join('.')}`})
  }
  const sets: FixtureSet[] = []
  for (const one of raw) {
    const path = fullPath(update, one.path)
    const value = setValue(update, path, one.raw)
    if ('error' in value) throw usage(value)
    const next = applySets(update, [{path, value: value.value}])
    if (isRefusal(next)) throw usage(next)
    update = next
    sets.push({path, value: value.value})
  }
  const request: TriggerRequest = {
    kind: 'fixture',
    type,
    ...(sets.length > 0 ? {sets} : {}),
    ...(template ? {template} : {}),
    ...(photo ? {file: photo} : {}),
    chatId: o.chatId,
    userId: o.userId,
  }
  return checkRequest(request)
}
