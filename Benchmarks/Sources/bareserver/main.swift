// The floor under `newsatlas serve`: Hummingbird 2 with one route, `GET /v1/resolve`, answering a fixed body
// of the size of a real answer (the service's own answer for Paris). serve_bench.py runs it beside the service
// with the same wrk script, so the service's resolve rate reads against what the framework itself does on the
// same machine in the same minutes. Prints `bareserver: serving on http://127.0.0.1:PORT` when ready.
import Foundation
import Hummingbird

let answer = """
  {"query":{"latitude":48.85,"longitude":2.35},"country":{"code":"fr","name":"France","nameFr":"France"},\
  "method":"inside","containing":{"code":"fr","name":"France"},"distanceKm":245.75452852826353}

  """
let router = Router()
router.get("/v1/resolve") { _, _ in
  Response(
    status: .ok, headers: [.contentType: "application/json"],
    body: ResponseBody(byteBuffer: ByteBuffer(string: answer)))
}
let app = Application(
  router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: "bareserver"),
  onServerRunning: { channel in
    print("bareserver: serving on http://127.0.0.1:\(channel.localAddress?.port ?? 0)")
    fflush(nil)  // every stream: stdout itself is not concurrency-safe to name
  })
try await app.runService()
