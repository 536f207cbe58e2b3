-- A key rule may give the vendor's own form (issue 34, item 4; docs/decisions/035). Playa3ull
-- issues Master Node License Keys as ############-####-####-####-############ (its node's README):
-- a key whose hyphen-separated groups have other lengths is refused before a node is started with it.
-- The same rule, with the same message, is apiKeyError in src/shared/validation.ts.

-- 'ab-c' → '2,1': what a key and its format must share.
create function private.group_lengths(p_text text) returns text
language sql immutable set search_path = ''
as $$
  select string_agg(char_length(g.part)::text, ',' order by g.n)
  from unnest(string_to_array(p_text, '-')) with ordinality as g(part, n)
$$;

-- Like the other private helpers (0003), for the database's own functions only.
revoke execute on function private.group_lengths(text) from public, anon, authenticated;

create or replace function private.api_key_error(p_key text, p_properties text) returns text
language plpgsql immutable set search_path = ''
as $$
declare
  props jsonb := private.parse_properties(p_properties);
  rule jsonb := props -> 'data_validation';
  field text := private.key_noun(p_properties);
begin
  if rule is null or jsonb_typeof(rule) <> 'object' then
    return case
      when char_length(p_key) < 44 or char_length(p_key) > 46 then format('%s must be 44-46 characters long', field)
      when p_key ~ '[\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]' then format('%s cannot contain spaces', field)
      when right(p_key, 1) <> '=' then format('%s must end with "="', field)
      when p_key !~ '^[A-Za-z0-9+/=]+$' then format('%s contains invalid characters', field)
    end;
  end if;
  if rule ? 'minimum_length' and char_length(p_key) < (rule ->> 'minimum_length')::int then
    return format('%s must be at least %s characters long', field, rule ->> 'minimum_length');
  end if;
  if rule ? 'maximum_length' and char_length(p_key) > (rule ->> 'maximum_length')::int then
    return format('%s must be at most %s characters long', field, rule ->> 'maximum_length');
  end if;
  if rule ? 'valid_chars' and p_key !~ ('^[' || (rule ->> 'valid_chars') || ']*$') then
    return coalesce(nullif(props ->> 'data_description', ''), format('%s contains invalid characters', field));
  end if;
  if rule ? 'format' and private.group_lengths(p_key) <> private.group_lengths(rule ->> 'format') then
    return format('%s must have the form %s', field, rule ->> 'format');
  end if;
  if rule ? 'ends_with' and right(p_key, char_length(rule ->> 'ends_with')) <> (rule ->> 'ends_with') then
    return format('%s must end with "%s"', field, rule ->> 'ends_with');
  end if;
  return null;
end
$$;

-- The Master Node's rule as seeded (0001_products.sql) takes Playa3ull's form. A row an admin has
-- edited since keeps the admin's rule.
update public.products
set properties = '{"data_name":"Master Node License Key","data_description":"The licence key contains only letters, digits and hyphens","data_validation":{"valid_chars":"A-Za-z0-9-","format":"############-####-####-####-############"}}'
where id = '00000000-0000-4000-8000-000000000003'
  and properties = '{"data_name":"Master Node License Key","data_description":"The licence key contains only letters, digits and hyphens","data_validation":{"minimum_length":20,"maximum_length":64,"valid_chars":"A-Za-z0-9-"}}';
