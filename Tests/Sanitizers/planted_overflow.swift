// A heap overflow planted on purpose: one byte written past an allocation. scripts/sanitize address builds it
// with -sanitize=address first and requires a report before it trusts a clean run of the suite.
let count = Int(CommandLine.arguments.count) + 15  // 16, not a constant the optimizer sees through
let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: count)
bytes.initialize(repeating: 0, count: count)
bytes[count] = 1
print(bytes[0])
bytes.deallocate()
