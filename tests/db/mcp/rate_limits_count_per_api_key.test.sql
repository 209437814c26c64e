-- mcp.take_rate_limit counts per API key (from the transaction's claims) and minute: over the limit it
-- raises PT429 rate_limited; another key of the same user has its own budget.
begin;
select plan(3);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_api_key(:'alice', 'sk_alice001_' || repeat('a', 43)) as first_key \gset
select tests.create_api_key(:'alice', 'sk_alice002_' || repeat('b', 43)) as second_key \gset

select core.enter_api_key_scope(tests.api_key_hash('sk_alice001_' || repeat('a', 43)), '{}') is not null as entered \gset
select lives_ok($$select mcp.take_rate_limit('backend', null, 2); select mcp.take_rate_limit('backend', null, 2)$$,
  'two requests within a limit of 2 pass');
select throws_ok($$select mcp.take_rate_limit('backend', null, 2)$$, 'PT429', null, 'the third is refused');
select tests.clear_authentication();

select core.enter_api_key_scope(tests.api_key_hash('sk_alice002_' || repeat('b', 43)), '{}') is not null as entered \gset
select lives_ok($$select mcp.take_rate_limit('backend', null, 2)$$, 'the same user''s other key has its own budget');

select * from finish();
rollback;
