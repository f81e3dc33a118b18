// A standalone reproducer of a Swift 6.3.1 optimizer miscompile (Linux x86_64), compiled with `swiftc -O
// -parse-as-library` and run by Tests/NewsAPITests/TaskTupleMiscompileTests.swift. Not part of any target.
//
// A task group's child written `do { return (n, .success(try await f(n))) } catch { return (n, .failure(error))
// }` hands back a garbage `n` (often 0) in an optimized build; `-Onone` is right. The same child that binds the
// result first and then returns `(n, result)` is right in both. NewsAtlas's GDELT and feeds answers trapped
// (index out of range) in the release binary because of it; Sources/NewsAPI/Result+Awaiting.swift is the
// workaround every such site now goes through.
//
// It prints two lines, each the indices the children handed back, sorted: "bare: 0 1 2 …" and "bound: 0 1 2 …".
// A right build prints 0 to 8 on both.

enum Failure: Error { case refused(Int, String) }
struct Body { var records: Int; var articles: [String] }

@inline(never) func work(_ n: Int) async throws(Failure) -> Body {
  if n % 3 == 2 { throw .refused(n, "every third") }
  return Body(records: n, articles: ["a\(n)", "b"])
}

@inline(never) func bare(_ count: Int) async -> [Int] {
  await withTaskGroup(of: (Int, Result<Body, Failure>).self) { group in
    for n in 0..<count {
      group.addTask {
        do throws(Failure) { return (n, .success(try await work(n))) } catch { return (n, .failure(error)) }
      }
    }
    var indices: [Int] = []
    for await (n, _) in group { indices.append(n) }
    return indices.sorted()
  }
}

@inline(never) func bound(_ count: Int) async -> [Int] {
  await withTaskGroup(of: (Int, Result<Body, Failure>).self) { group in
    for n in 0..<count {
      group.addTask {
        let result: Result<Body, Failure>
        do throws(Failure) { result = .success(try await work(n)) } catch { result = .failure(error) }
        return (n, result)
      }
    }
    var indices: [Int] = []
    for await (n, _) in group { indices.append(n) }
    return indices.sorted()
  }
}

@main struct Reproducer {
  static func main() async {
    print("bare:", await bare(9).map(String.init).joined(separator: " "))
    print("bound:", await bound(9).map(String.init).joined(separator: " "))
  }
}
