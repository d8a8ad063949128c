/**
 * An embedder's own sign-in (docs/dashboard.md, "Your application's sign-in"): with
 * `dashboard.authenticate`, the application says who the browser is (its session, an identity
 * provider) and the dashboard's links and passkeys are off. The dashboard still keeps a session of
 * its own for that account (its cookie, its form token, its expiry), started the first time the
 * application names the account and ended as soon as it names nobody or someone else: the
 * application's sign-in decides on every request, the dashboard's session only carries the form
 * token its forms need.
 */
import type { Ports } from '../operations/context.js';
import type { CoreRequest } from '../pipeline/request.js';
import type { DashboardPort } from '../ports/dashboard.js';
import { sessionCookie, startSession, type SessionSettings, type SignedIn } from './session.js';
import type { Authenticate } from '../operations/context.js';

export type { Authenticate, DashboardRequest } from '../operations/context.js';


/**
 * The session this request acts under: the dashboard's own when the application names its account,
 * a new one (and its cookie) when it names another or there was none, none when it names nobody.
 */
export async function embeddedSession(
  authenticate: Authenticate,
  port: DashboardPort,
  ports: Pick<Ports, 'storage' | 'ids' | 'clock'>,
  request: CoreRequest,
  path: string,
  current: SignedIn | null,
  settings: SessionSettings,
  secure: boolean,
): Promise<{ signedIn: SignedIn | null; cookie?: string }> {
  // A throw is the application's failure: the frame answers 500 and tells onError, as for any bug.
  const named = await authenticate({ method: request.method, path, header: (name) => request.header(name.toLowerCase()) });
  if (named !== null && typeof named !== 'string') throw new TypeError('dashboard.authenticate must answer an account id or username, or null');
  const account = named ? ((await ports.storage.getAccount(named)) ?? (await ports.storage.findAccountByUsername(named))) : null;
  if (current && current.session.account_id === account?.id) return { signedIn: current };
  if (current) await port.deleteSession(current.session.hash);
  if (!account) return { signedIn: null, ...(current ? { cookie: sessionCookie(null, settings, secure) } : {}) };
  const started = await startSession(port, ports.ids, ports.clock, account.id, settings);
  return { signedIn: started, cookie: sessionCookie(started.secret, settings, secure) };
}
