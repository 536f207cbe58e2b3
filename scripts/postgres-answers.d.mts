/** Whether a PostgreSQL answers at `url` within 3 s. */
export function postgresAnswers(url: string): Promise<boolean>;
