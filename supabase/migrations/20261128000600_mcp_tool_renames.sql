-- The public MCP tool show_my_ticket is now get_my_ticket_link (one verb_object name per action).
-- The assistant's registry keys its operator switch by tool name: carry the row over, so a tool an
-- operator turned off stays off under its new name instead of being discovered as a new, enabled one.
update chat.capabilities
   set tool_name = 'get_my_ticket_link'
 where source = 'service'
   and tool_name = 'show_my_ticket'
   and not exists (select 1 from chat.capabilities renamed where renamed.source = 'service' and renamed.tool_name = 'get_my_ticket_link');
