-- The ceiling of the bulk rows: wrk posting a NewPlant with an id of its own each request, the
-- same shape of record `plants add --file` sends. Arguments (after --): the bench's token and the
-- first id. wrk runs one copy of this script per thread: the bench uses one thread. No response()
-- hook (it would make wrk read every answer in Lua): a 409 or any other status shows in wrk's own
-- "Non-2xx or 3xx responses" line.
local token, nextId

function init(args)
  token = args[1]
  nextId = tonumber(args[2] or "1")
end

function request()
  local id = nextId
  nextId = nextId + 1
  local body = string.format('{"id":%d,"name":"plant %d","tag":"bench"}', id, id)
  return wrk.format("POST", "/plants", {
    ["Content-Type"] = "application/json",
    ["Authorization"] = "Bearer " .. token,
  }, body)
end
