#!/usr/bin/env bash
# ClusterIndex.appending against whole builds, in process: Benchmarks/cluster_append.sh [N] [ROUNDS]. Compiles this
# checkout's Sources/GeoIndex with cluster_append.swift (swiftc -O -wmo, no package build) and runs it. Run from
# the repository.
set -euo pipefail
root=$(git rev-parse --show-toplevel)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cp "$root/Benchmarks/cluster_append.swift" "$scratch/main.swift"  # top-level code needs the name
swiftc -O -wmo -module-name GeoIndex "$root"/Sources/GeoIndex/*.swift "$scratch/main.swift" -o "$scratch/bench" \
  2>/dev/null
"$scratch/bench" "${1:-1000000}" "${2:-6}"
