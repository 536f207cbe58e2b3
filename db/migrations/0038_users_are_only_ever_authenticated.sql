-- Issue 42, item 1: a user's role is only ever authenticated. Sign-in once put the row's role into
-- the token, so a row that said service_role (an edited backup restored, say) signed its owner in
-- past every policy. The token now always says authenticated (access-token.ts); this keeps the row
-- honest too, for every writer: sign-up, the admin's, a restore (a check constraint holds while its
-- user triggers are off). Nothing NodeHarbor runs writes another role, so a database where a row
-- holds one refuses this migration, naming the constraint: look at that account before anything else.

alter table auth.users add constraint users_role_is_authenticated check (role = 'authenticated');
