-- MCP OAuth (issue 10): the public MCP endpoint's authorization server: clients, sign-in codes,
-- grants, authorization codes, tokens.
-- (Being written.)
select 1;
