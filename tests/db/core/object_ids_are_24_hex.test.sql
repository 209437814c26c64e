-- Public ids are MongoDB-style ObjectIDs made in SQL: 24 lowercase hex digits, the first 8 the
-- creation time in seconds; the core.object_id domain refuses anything else.
begin;
select plan(9);

select matches(core.new_object_id()::text, '^[0-9a-f]{24}$', 'core.new_object_id() is 24 lowercase hex digits');

select tests.create_user('alice@example.com') as alice \gset
select matches(:'alice'::text, '^[0-9a-f]{24}$', 'a new user''s id is 24 lowercase hex digits');

select ok(
  abs(
    ('x' || lpad(substr(core.new_object_id()::text, 1, 8), 16, '0'))::bit(64)::bigint
    - extract(epoch from clock_timestamp())::bigint
  ) <= 5,
  'the first 8 hex digits are the current time in seconds'
);

select is(
  (select count(distinct core.new_object_id()) from generate_series(1, 10000))::int,
  10000,
  '10000 ids made in a burst are distinct'
);

select is_empty(
  $$
    select format('%I.%I', c.table_schema, c.table_name) as id_not_an_object_id
    from information_schema.columns c
    join information_schema.tables t using (table_schema, table_name)
    where c.table_schema = 'core' and t.table_type = 'BASE TABLE' and c.column_name = 'id'
      and (c.domain_schema, c.domain_name) is distinct from ('core', 'object_id')
    order by 1
  $$,
  'every id column in core is a core.object_id'
);

select throws_ok($$select 'ABCDEF0123456789ABCDEF01'::core.object_id$$, '23514', null, 'uppercase hex is refused');
select throws_ok($$select '0123456789abcdef0123456'::core.object_id$$, '23514', null, '23 digits are refused');
select throws_ok($$select '0123456789abcdef0123456g'::core.object_id$$, '23514', null, 'a non-hex digit is refused');
select throws_ok(
  $$insert into core.users (id) values ('not-an-object-id')$$,
  '23514', null,
  'a user cannot be stored with a malformed id'
);

select * from finish();
rollback;
