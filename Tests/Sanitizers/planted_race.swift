// A data race planted on purpose: two threads increment one global without a lock. scripts/sanitize thread
// builds it with -sanitize=thread first and requires a report, so that a clean run of the suite means
// something (a ThreadSanitizer that reports nothing here would be reporting nothing anywhere).
import Glibc

nonisolated(unsafe) var counter = 0

func bump(_: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
  for _ in 0..<100_000 { counter += 1 }
  return nil
}

var first = pthread_t()
var second = pthread_t()
pthread_create(&first, nil, bump, nil)
pthread_create(&second, nil, bump, nil)
pthread_join(first, nil)
pthread_join(second, nil)
print(counter)
