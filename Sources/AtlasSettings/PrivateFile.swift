import AtlasMessages
import Foundation

/// A file written whole beside the one it replaces, readable by the user alone, and put in place in one step:
/// the settings file, the feeds file and the datasets `serve` keeps (`--datasets-dir`).
///
/// The bytes go to a temporary file in the destination's folder created with `O_CREAT | O_EXCL` and mode 0600
/// (never wider, not even for a moment); `commit(as:)` syncs it, renames it over the destination and syncs the
/// folder, so that after it returns the new file is on disk and a crash at any moment before leaves the old one
/// whole. A temporary file left by a crash is named `.NAME.tmp-PID-RANDOM` (`isTemporary`), for whoever owns
/// the folder to remove.
public final class PrivateFile {
  /// The open temporary file, for writing (and reading back by offset).
  public let fileDescriptor: Int32
  /// Its path, until `commit(as:)` renames it.
  public let temporaryPath: String
  /// Whether `commit(as:)` renamed the file into place (even if the folder's sync failed after).
  public private(set) var isInPlace = false
  private var committed = false
  private var closed = false

  /// Creates the temporary file beside `path`, and `path`'s folder (0700) if need be.
  ///
  /// - Throws: `SettingsError` (`cannotWrite`) naming `what` and the step that failed.
  public init(beside path: String, naming what: any CustomStringConvertible) throws(SettingsError) {
    let directory = (path as NSString).deletingLastPathComponent
    guard SettingsFile.makeFolder(directory) else {
      throw Self.failure(what, path, Sentence(.writeStepFolder), errno)
    }
    let base = (path as NSString).lastPathComponent
    var temporary = ""
    var fd: Int32 = -1
    for _ in 0..<8 where fd < 0 {
      temporary = directory + "/." + base + ".tmp-\(getpid())-\(UInt32.random(in: .min ... .max))"
      fd = open(temporary, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
      if fd < 0 && errno != EEXIST { break }
    }
    guard fd >= 0 else { throw Self.failure(what, path, Sentence(.writeStepTemporary), errno) }
    fileDescriptor = fd
    temporaryPath = temporary
  }

  /// Whether a file name is one of the temporary files this makes (left behind by a crash).
  public static func isTemporary(_ name: String) -> Bool { name.hasPrefix(".") && name.contains(".tmp-") }

  /// Writes all of `bytes` at the file's offset.
  public func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
    var written = 0
    while written < bytes.count {
      let count = Foundation.write(fileDescriptor, bytes.baseAddress! + written, bytes.count - written)
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { return false }
      written += count
    }
    return true
  }

  /// Syncs the file (with `syncFile`, `fsync` but in tests: 0, or -1 and `errno`), renames it to `path` and syncs
  /// the folder (with `syncFolder`, `PrivateFile.syncFolder` but in tests); the descriptor stays open (for
  /// reading the file back) until `close()`.
  ///
  /// - Throws: `SettingsError` (`cannotWrite`); the temporary file is then removed, `path` untouched, unless the
  ///   folder's sync failed after the rename (`isInPlace`: the new file is in place, but may not survive a crash).
  public func commit(
    as path: String, naming what: any CustomStringConvertible, syncFile: (Int32) -> Int32 = { fsync($0) },
    syncFolder: (String) -> FolderSyncFailure? = PrivateFile.syncFolder
  ) throws(SettingsError) {
    guard syncFile(fileDescriptor) == 0 else {
      let code = errno
      discard()
      throw Self.failure(what, path, Sentence(.writeStepSync), code)
    }
    guard rename(temporaryPath, path) == 0 else {
      let code = errno
      discard()
      throw Self.failure(what, path, Sentence(.writeStepRename), code)
    }
    committed = true
    isInPlace = true
    // The rename itself reaches the disk only with the folder: until then a crash may bring the old file back,
    // so a failure here is the commit's failure (the new file is in place, but not for sure after a crash).
    if let failure = syncFolder((path as NSString).deletingLastPathComponent) {
      throw Self.failure(what, path, failure.step, failure.code)
    }
  }

  /// The step of a folder's sync that failed, and the system's error number.
  public struct FolderSyncFailure: Error, Sendable {
    /// The step: a `Sentence` (said in the reader's language) or text.
    public let step: any CustomStringConvertible & Sendable
    public let code: Int32
    public init(step: any CustomStringConvertible & Sendable, code: Int32) {
      self.step = step
      self.code = code
    }
  }

  /// Syncs `folder` (so that a file created, renamed or removed in it stays so): nil, or what failed.
  public static func syncFolder(_ folder: String) -> FolderSyncFailure? {
    let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard fd >= 0 else { return FolderSyncFailure(step: Sentence(.writeStepOpenFolder), code: errno) }
    defer { Foundation.close(fd) }
    guard fsync(fd) == 0 else { return FolderSyncFailure(step: Sentence(.writeStepSyncFolder), code: errno) }
    return nil
  }

  /// Removes the temporary file unless it was committed (the descriptor stays open).
  public func discard() {
    if !committed { unlink(temporaryPath) }
    committed = true
  }

  /// Closes the descriptor, removing the temporary file unless it was committed.
  public func close() {
    discard()
    if !closed { Foundation.close(fileDescriptor) }
    closed = true
  }

  deinit { close() }

  static func failure(
    _ what: any CustomStringConvertible, _ path: String, _ step: any CustomStringConvertible, _ code: Int32
  ) -> SettingsError {
    .cannotWrite(.writeFailed, what, path, step, String(cString: strerror(code)))
  }
}
