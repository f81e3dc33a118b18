#if canImport(Glibc)
  import Glibc
#endif

/// libFuzzer's own driver (in the runtime that `-sanitize=fuzzer` links): SwiftPM gives every executable an
/// entry point of its own, so libFuzzer's `main` is not used and each target calls the driver from `@main`.
@_silgen_name("LLVMFuzzerRunDriver")
private func llvmFuzzerRunDriver(
  _ argc: UnsafeMutablePointer<CInt>,
  _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
  _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt

/// Runs libFuzzer with the process's arguments on `callback`, and exits with its status.
public func runFuzzer(_ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt) -> Never {
  var argc = CommandLine.argc
  var argv = CommandLine.unsafeArgv
  exit(llvmFuzzerRunDriver(&argc, &argv, callback))
}
