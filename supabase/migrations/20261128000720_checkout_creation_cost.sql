-- POST /api/v3/checkout/sessions in one statement, as GET /me is (core.me_by_api_key): the function
-- enters the API key's scope itself, then creates the session and ensures the webhook secret as
-- `authenticated`, so RLS and the insert policies decide as before. One statement is one
-- transaction: no BEGIN, setup and COMMIT of their own, no reserved connection. Like every function
-- that enters a key's scope, it is the gateway's own role's alone (core, invoker rights).
-- Inside an MCP call's transaction the gateway runs the same two functions in the call's scope.
create function core.create_checkout_session_by_api_key(
  p_key_hash                    bytea,
  p_required_permissions        text[],
  p_collection_id               core.object_id,
  p_external_order_id           text,
  p_fingerprint                 bytea,
  p_request                     jsonb,
  p_client_secret_hash          bytea,
  p_client_secret_ciphertext    bytea,
  p_expires_in_seconds          integer,
  p_webhook_url                 text,
  p_webhook_secret_ciphertext   bytea
)
  returns table (
    id                        core.object_id,
    owner_id                  core.object_id,
    client_secret_ciphertext  bytea,
    status                    text,
    expires_at                timestamptz,
    created                   boolean,
    webhook_secret_ciphertext bytea
  )
  language plpgsql volatile security invoker
  set search_path = ''
  as $$
  begin
    perform core.enter_api_key_scope(p_key_hash, p_required_permissions);
    -- create_session runs first: a conflict aborts the statement before the webhook secret is stored.
    return query
      select s.id, s.owner_id, s.client_secret_ciphertext, s.status, s.expires_at, s.created,
             checkout.ensure_webhook_secret(p_webhook_url, p_webhook_secret_ciphertext)
      from checkout.create_session(p_collection_id, p_external_order_id, p_fingerprint, p_request,
                                   p_client_secret_hash, p_client_secret_ciphertext,
                                   now() + make_interval(secs => p_expires_in_seconds)) s;
  end
  $$;
revoke execute on function core.create_checkout_session_by_api_key(bytea, text[], core.object_id, text, bytea, jsonb, bytea, bytea, integer, text, bytea) from public;
grant execute on function core.create_checkout_session_by_api_key(bytea, text[], core.object_id, text, bytea, jsonb, bytea, bytea, integer, text, bytea) to api_gateway;
