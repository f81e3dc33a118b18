-- Walks the tile list (tiles.txt: "z x y" lines, written by serve_bench.py from Fixtures/tiles-3000.json), each
-- connection from its own offset, so that 64 connections ask for the list's tiles in turn.
local tiles = {}
local counter = 0

function setup(thread)
  counter = counter + 1
  thread:set("offset", counter * 47)
end

function init(args)
  for line in io.lines(os.getenv("TILES") or "tiles.txt") do
    tiles[#tiles + 1] = line
  end
  index = offset or 0
end

function request()
  index = index % #tiles + 1
  local z, x, y = tiles[index]:match("(%d+) (%d+) (%d+)")
  return wrk.format("GET", "/tiles/" .. (os.getenv("DATASET") or "points") .. "/" .. z .. "/" .. x .. "/" .. y .. ".mvt")
end
