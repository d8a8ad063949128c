/** The settings a PostgreSQL pool opens with (driver.ts), and what is made of them before it opens. */

export interface PgSettings {
  /** A `postgres://` URL, or node-postgres connection options (host, port, user, password, database, ssl, ...). */
  url?: string | undefined;
  connection?: Record<string, unknown> | undefined;
  poolSize: number;
  statementTimeoutMs: number;
  connectTimeoutMs: number;
  idleTimeoutMs: number;
  retries: number;
  /** The schema every connection works in (its `search_path`, set when it opens). */
  schema: string;
  /** Errors of idle connections (the server went away); the next query reconnects. */
  onError?: ((error: Error) => void) | undefined;
}

/** `host:port/database` of the settings, for messages. */
export function describe(settings: PgSettings): string {
  if (settings.url) {
    try {
      const url = new URL(settings.url);
      return `${url.hostname || 'localhost'}:${url.port || 5432}${url.pathname}`;
    } catch {
      // Only for messages: a url that does not parse is named without its parts (the driver says what is wrong with it).
      return '(the given url)';
    }
  }
  const c = settings.connection ?? {};
  return `${String(c.host ?? process.env.PGHOST ?? 'localhost')}:${String(c.port ?? process.env.PGPORT ?? 5432)}/${String(c.database ?? process.env.PGDATABASE ?? '')}`;
}

/**
 * The connection's startup options with `-c search_path=<schema>` last (it wins over an earlier
 * one), and the URL without its own `options` parameter (node-postgres would let it replace these).
 * A startup option, not a SET after connecting: every connection the pool or LISTEN opens, a
 * reconnect included, is in the schema before its first statement, with no round trip and no
 * window in which a query could run elsewhere. The name needs no quoting (schema-name.ts).
 */
export function inSchema(settings: PgSettings): { url: string | undefined; options: string } {
  let url = settings.url;
  let given = settings.connection?.options as string | undefined;
  if (url) {
    try {
      const parsed = new URL(url);
      if (parsed.searchParams.has('options')) {
        given = parsed.searchParams.get('options') ?? undefined;
        parsed.searchParams.delete('options');
        url = parsed.href;
      }
    } catch {
      // Left as it is: node-postgres says what is wrong with it.
    }
  }
  given ??= process.env.PGOPTIONS || undefined;
  return { url, options: `${given ? `${given} ` : ''}-c search_path=${settings.schema}` };
}

