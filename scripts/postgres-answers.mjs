import pg from 'pg';

/** Whether a PostgreSQL answers at `url` within 3 s: the test steps that need one run only then. */
export async function postgresAnswers(url) {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await c.connect();
    await c.end();
    return true;
  } catch {
    return false;
  }
}
