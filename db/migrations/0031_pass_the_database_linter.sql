-- Issue 21, item 3: what Supabase's database linter (splinter) found on a freshly migrated
-- database, mended. test/domain/database-lint.test.ts keeps it so.

-- auth_rls_initplan: auth.uid() in a policy is called once per row; (select auth.uid()) is an
-- init plan, evaluated once per statement.
alter policy "Users can see their own admin membership" on public.admin_users using (user_id = (select auth.uid()));
alter policy "Admins can read contact messages" on public.contact_messages using ((select private.is_admin((select auth.uid()))));
alter policy "Users can read their own purchases" on public.credit_purchases using (user_id = (select auth.uid()));
alter policy "Users can read their own transactions" on public.credit_transactions using (user_id = (select auth.uid()));
alter policy "Users can see their own dev access" on public.dev_access_users using (user_id = (select auth.uid()));
alter policy "Users can read their own profile" on public.profiles using (id = (select auth.uid()));
alter policy "Users can update their own profile" on public.profiles using (id = (select auth.uid())) with check (id = (select auth.uid()));
alter policy "Users can read their own service events" on public.service_events using (user_id = (select auth.uid()));
alter policy "Users can read their own balance" on public.user_credits using (user_id = (select auth.uid()));

-- multiple_permissive_policies: a signed-in reader of products met two permissive policies, each
-- evaluated for every row. One policy per role now; anon cannot call is_admin, and needs not.
drop policy "Anyone can read active products" on public.products;
drop policy "Admins can read every product" on public.products;
create policy "Anyone can read active products" on public.products
  for select to anon using (is_active);
create policy "Signed-in users read active products, admins every product" on public.products
  for select to authenticated using (is_active or (select private.is_admin((select auth.uid()))));

-- unindexed_foreign_keys: deleting a product or an account looks these rows up by the key.
create index services_product_idx on private.services (product_id);
create index node_incidents_user_idx on private.node_incidents (user_id);

-- function_search_path_mutable: the one function of ours that did not fix it.
alter function private.node_state_of(public.service_state, text, timestamptz) set search_path = '';
