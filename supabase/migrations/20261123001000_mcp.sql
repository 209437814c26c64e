-- MCP (issue 10): the audit of tool calls on both endpoints and per-token rate limits.
-- (Being written.)
select 1;
