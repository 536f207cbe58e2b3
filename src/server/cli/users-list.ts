import type { Command } from './command';

export const usersList: Command = {
  usage: '[--search TEXT]',
  summary: 'List users: e-mail, name, created, last sign-in.',
  options: { search: { type: 'string' } },
  async run({ db }, values, print) {
    const search = typeof values.search === 'string' ? `%${values.search.toLowerCase()}%` : null;
    const { rows } = await db.query<{ email: string; name: string | null; created_at: Date; last_sign_in_at: Date | null }>(
      `select email, raw_user_meta_data ->> 'full_name' as name, created_at, last_sign_in_at
       from auth.users where $1::text is null or email like $1 order by created_at`,
      [search],
    );
    if (rows.length === 0) return print('No users.');
    for (const u of rows) {
      print([u.email.padEnd(36), (u.name ?? '-').padEnd(24), u.created_at.toISOString().slice(0, 10), u.last_sign_in_at?.toISOString() ?? 'never'].join(' '));
    }
  },
};
