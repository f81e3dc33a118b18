// A correctly locked counter: two threads append under one Synchronization.Mutex. No race, and the count is
// always 40000. Swift 6.3.1's Mutex waits on futex system calls, which ThreadSanitizer does not see, so here it
// reports this program's accesses as a race (measured 2026-11-28). scripts/sanitize thread builds it too and
// says whether the sanitizer sees Mutex: when it does not, a report whose accesses a Mutex guards is not evidence.
import Glibc
import Synchronization
final class Box: Sendable { let value = Mutex<[Int]>([]) }
let box = Box()
func bump(_ p: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
  for i in 0..<20000 { box.value.withLock { $0.append(i) } }
  return nil
}
var a = pthread_t(); var b = pthread_t()
pthread_create(&a, nil, bump, nil); pthread_create(&b, nil, bump, nil)
pthread_join(a, nil); pthread_join(b, nil)
print(box.value.withLock { $0.count })
