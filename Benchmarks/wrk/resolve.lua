-- GET /v1/resolve at seeded pseudo-random places (the same sequence every run). The requests are formatted
-- once in init() and request() only looks the next one up: wrk's SCRIPTING notes that building a request per
-- call is expensive, and here wrk shares the server's two cores, so every cycle its Lua spends is taken from
-- the server.
local requests = {}
local index = 0

function init(args)
  local seed = 7919
  for i = 1, 4096 do
    seed = (seed * 1103515245 + 12345) % 2147483648
    local lat = (seed % 17000) / 100 - 85
    seed = (seed * 1103515245 + 12345) % 2147483648
    local lon = (seed % 36000) / 100 - 180
    requests[i] = wrk.format("GET", string.format("/v1/resolve?lat=%.2f&lon=%.2f", lat, lon))
  end
end

function request()
  index = index % #requests + 1
  return requests[index]
end
