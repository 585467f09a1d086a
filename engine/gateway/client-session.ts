// What a 2025-revision client declared at `initialize` that the gateway needs later: whether it
// takes URL mode elicitation (client/elicitation.mdx, 2025-11-25), so that a call to a tool needing
// confirmation may answer -32042 ("Servers MUST NOT send elicitation requests with modes that are
// not supported by the client"). The server stays stateless: the session id it assigns to such a
// client (streamable-http "Session Management": "MAY assign a session ID at initialization time")
// says so itself, with a random part; nothing is kept per session. A client that forges one only
// asks for the -32042 answer for itself. Other clients get no session id, as before.

import { randomBytes } from 'node:crypto';

/** The revisions that have URL mode elicitation and -32042. */
const URL_ELICITATION_VERSIONS: readonly string[] = ['2025-11-25'];

const URL_SESSION = 'elicit-url.';

/** The session id for an `initialize` whose client declared URL elicitation, else undefined. */
export function sessionFor(version: string, capabilities: unknown): string | undefined {
  const url = (capabilities as any)?.elicitation?.url;
  if (!URL_ELICITATION_VERSIONS.includes(version) || !url || typeof url !== 'object') return undefined;
  return URL_SESSION + randomBytes(16).toString('base64url');
}

/** The request comes from a client that declared URL elicitation at initialize (its session id says so). */
export function declaredUrlElicitation(version: string, sessionId: string | undefined): boolean {
  return URL_ELICITATION_VERSIONS.includes(version) && sessionId !== undefined && sessionId.startsWith(URL_SESSION);
}
