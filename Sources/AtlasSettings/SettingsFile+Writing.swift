import AtlasMessages
import Foundation

extension SettingsFile {
  /// The first line of a settings file this writes from nothing.
  public static let header = "# NewsAtlas settings; 'newsatlas config --help' explains them.\n"

  /// Sets `key` to `value` (nil removes it) and saves the file; returns the file as saved.
  ///
  /// The change is made in place: a value that is set is replaced where it stands (its key's spelling, the
  /// spaces around `=` and a comment after it kept), a removed one loses its line (and that line's comment), a
  /// new one is added as the last line; every other byte stays as it was. The new text is read back before it
  /// is written, and must hold exactly the old settings with this one change.
  ///
  /// - Throws: `SettingsError` (`cannotWrite`) when the file cannot be written, or the edit would change
  ///   something else.
  public func setting(_ key: String, to value: SettingValue?) throws(SettingsError) -> SettingsFile {
    guard value != nil || self[key] != nil else { return self }  // nothing to remove: nothing written
    let changed = try edited(key, to: value)
    try Self.writePrivately(changed.bytes, path: path, naming: Sentence(.theSettingsFile))
    return changed
  }

  /// The file `setting(_:to:)` would write, read back, without writing it.
  ///
  /// - Throws: `SettingsError` (`cannotWrite`) when the edit would change something else.
  public func edited(_ key: String, to value: SettingValue?) throws(SettingsError) -> SettingsFile {
    var text = bytes
    if let entry = self[key] {
      if let value {
        text.replaceSubrange(entry.span.value, with: Array(TOMLText.value(value).utf8))
      } else {
        text.removeSubrange(entry.span.start..<entry.span.end)
      }
    } else if let value {
      let lineEnding: [UInt8] =
        text.firstIndex(of: 0x0A).map { $0 > 0 && text[$0 - 1] == 0x0D } == true
        ? [0x0D, 0x0A] : [0x0A]
      if text.isEmpty {
        text = Array(Self.header.utf8)
      } else if text.last != 0x0A {
        text += lineEnding
      }
      text += Array("\(TOMLText.key(key)) = \(TOMLText.value(value))".utf8) + lineEnding
    } else {
      return self
    }
    var expected = entries.map { ($0.key, $0.value) }.filter { $0.0 != key }
    if let value { expected.append((key, value)) }
    let changed: SettingsFile
    do {
      changed = try Self.parse(text, path: path)
    } catch {
      throw Self.cannotEdit(key, path)
    }
    guard
      Dictionary(uniqueKeysWithValues: changed.entries.map { ($0.key, $0.value) })
        == Dictionary(uniqueKeysWithValues: expected)
    else { throw Self.cannotEdit(key, path) }
    return changed
  }

  static func cannotEdit(_ key: String, _ path: String) -> SettingsError {
    .cannotWrite(.settingsCannotEdit, key, path)
  }

  /// Removes the file, or whatever stands in its place (no file is no settings).
  public static func remove(path: String) throws(SettingsError) {
    var status = stat()
    guard lstat(path, &status) == 0 else { return }
    do {
      try FileManager.default.removeItem(atPath: path)
    } catch {
      throw .cannotWrite(.settingsCannotRemove, path, error.localizedDescription)
    }
  }

  /// Writes `bytes` as the file at `path`, readable by the user alone, in a folder only the user can enter:
  /// the settings file (which may hold the key) and the feeds file beside it, through `PrivateFile` (a
  /// temporary file created 0600, synced, renamed over the old one, the folder synced). A failure removes the
  /// temporary file and leaves the old file as it was. `what` names the file in errors.
  ///
  /// A path that is a symbolic link (a dotfiles manager's) is written through: the file it leads to is
  /// replaced and the link stays. A link that leads nowhere is refused with the reason.
  public static func writePrivately(_ bytes: [UInt8], path given: String, naming what: any CustomStringConvertible)
    throws(SettingsError)
  {
    var status = stat()
    var path = given
    if lstat(given, &status) == 0, status.st_mode & S_IFMT == S_IFLNK {
      guard let resolved = realpath(given, nil) else {
        throw PrivateFile.failure(what, given, Sentence(.writeStepFollowingLink), errno)
      }
      path = String(cString: resolved)
      free(resolved)
    }
    let file = try PrivateFile(beside: path, naming: what)
    guard bytes.withUnsafeBytes({ file.write($0) }) else {
      let code = errno
      file.close()
      throw PrivateFile.failure(what, path, Sentence(.writeStepWrite), code)
    }
    do {
      try file.commit(as: path, naming: what)
    } catch {
      file.close()
      throw error
    }
    file.close()
  }

  /// Creates `directory` and any missing parent with mode 0700, and with `own` makes `directory` itself 0700
  /// when it exists (it holds the key's file); false, with `errno` set, when that fails.
  public static func makeFolder(_ directory: String, own: Bool = true) -> Bool {
    var status = stat()
    if stat(directory, &status) != 0 {
      guard errno == ENOENT else { return false }
      let parent = (directory as NSString).deletingLastPathComponent
      if !parent.isEmpty && parent != directory && !makeFolder(parent, own: false) { return false }
      return mkdir(directory, 0o700) == 0 || errno == EEXIST
    }
    guard status.st_mode & S_IFMT == S_IFDIR else {
      errno = ENOTDIR
      return false
    }
    return !own || status.st_mode & 0o077 == 0 || chmod(directory, 0o700) == 0
  }
}
