-- GET /v1/resolve at seeded pseudo-random places (the same sequence every run).
local seed = 1

function init(args)
  seed = (offset or 1) * 7919
end

function request()
  seed = (seed * 1103515245 + 12345) % 2147483648
  local lat = (seed % 17000) / 100 - 85
  seed = (seed * 1103515245 + 12345) % 2147483648
  local lon = (seed % 36000) / 100 - 180
  return wrk.format("GET", string.format("/v1/resolve?lat=%.2f&lon=%.2f", lat, lon))
end
