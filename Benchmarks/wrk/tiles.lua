-- Walks the tile list (tiles.txt: "z x y" lines, written by serve_bench.py from Fixtures/tiles-3000.json),
-- each connection from its own offset, so that 64 connections ask for the list's tiles in turn. The requests
-- are formatted once in init() and request() only looks the next one up: wrk's SCRIPTING notes that building
-- a request per call is expensive, and here wrk shares the server's two cores.
local requests = {}
local counter = 0

function setup(thread)
  counter = counter + 1
  thread:set("offset", counter * 47)
end

function init(args)
  local dataset = os.getenv("DATASET") or "points"
  for line in io.lines(os.getenv("TILES") or "tiles.txt") do
    local z, x, y = line:match("(%d+) (%d+) (%d+)")
    local path = "/tiles/" .. dataset .. "/" .. z .. "/" .. x .. "/" .. y .. ".mvt"
    requests[#requests + 1] = wrk.format("GET", path)
  end
  index = offset or 0
end

function request()
  index = index % #requests + 1
  return requests[index]
end
