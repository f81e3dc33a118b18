import Store

#if canImport(Glibc)
  import Glibc
#endif

/// What the cache adds to one cold fetch: a lookup that misses, the request counted, the answer stored.
func cacheMeasurements(path: String) {
  guard let database = CacheDatabase(path: path, warn: { print($0) }) else {
    fatalError("no cache at \(path)")
  }
  let body = [UInt8](repeating: 0x61, count: 20_000)  // a page of 20 articles is about this size
  let rounds = 2000
  let start = now()
  for i in 0..<rounds {
    let key = "https://newsapi.org/v2/top-headlines?country=c\(i)&page=1&pageSize=20"
    if database.lookup(key) == nil {
      database.recordRequest()
      database.store(key, kind: "headlines", body: body)
    }
  }
  let perRequest = (now() - start) / Double(rounds) * 1000
  print("{\"cache\":true,\"millisecondsPerColdFetch\":\(perRequest)}")
}
