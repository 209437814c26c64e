-- The hosted checkout page (GET /checkout/<id>) is served with
-- `Content-Security-Policy: frame-ancestors <allowedOrigin>`, so no other origin can embed it.
-- The page request carries no client secret (it is in the URL fragment, which browsers never send),
-- so the gateway needs the session's allowed origin by id alone. This function returns exactly that
-- origin and nothing else: the origin is not a secret (the storefront shows itself to every
-- visitor), and an unknown id answers null, which the gateway serves with `frame-ancestors 'none'`.
create function checkout.allowed_origin_of(p_session_id core.object_id)
  returns text
  language sql stable security definer
  set search_path = ''
  as $$ select s.request ->> 'allowedOrigin' from checkout.sessions s where s.id = p_session_id $$;

-- Functions are executable by PUBLIC when created; only the page's role may run this one.
revoke execute on function checkout.allowed_origin_of(core.object_id) from public;
grant execute on function checkout.allowed_origin_of(core.object_id) to anon;
