import AtlasMessages
import Glibc

/// The datasets folder one `serve` keeps its written datasets in, claimed for the process's lifetime.
///
/// Two servers on one folder would both answer 200 to every write and then overwrite each other's journal
/// records at the same offsets (issue 43): the second one is refused at start instead. The claim is an
/// exclusive `flock` on `.serve.lock` in the folder, held by an open descriptor until the process ends (the
/// kernel releases it on any exit, SIGKILL included, so a stale lock never blocks a restart); the file holds the
/// holder's pid, for the refusal's sentence. One machine's answer: replicas on several machines share a database,
/// not a folder.
public enum DatasetsFolder {
  /// Why the folder cannot be used; `sentence` says it in the reader's language.
  public enum Refusal: Error, Sendable {
    /// Another process holds the lock (its pid when the lock file names one).
    case locked(Sentence)
    /// The path is a regular file, a link to one, a device…: a usage error.
    case notAFolder(Sentence)
    /// The folder could not be made, opened or locked (permissions, a full disk).
    case unusable(Sentence)

    public var sentence: Sentence {
      switch self {
      case .locked(let sentence), .notAFolder(let sentence), .unusable(let sentence): sentence
      }
    }
  }

  /// The lock file's name in the folder (not a dataset's: datasets are `NAME.geojson` and `NAME.journal`).
  static let lockName = ".serve.lock"

  /// Makes `directory` (0700) if it does not exist, refuses it if it is not a folder, and locks it for this
  /// process; returns the lock's descriptor, which must stay open while the process serves.
  public static func claim(_ directory: String) throws(Refusal) -> Int32 {
    var status = stat()
    if stat(directory, &status) != 0 {
      guard errno == ENOENT, makeFolders(directory) else {
        throw .unusable(Sentence(.serveDatasetsFolderUnusable, directory, reason(errno)))
      }
    } else if status.st_mode & S_IFMT != S_IFDIR {
      throw .notAFolder(Sentence(.serveDatasetsFolderNotFolder, directory, kind(status.st_mode)))
    }
    let path = directory + "/" + lockName
    let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw .unusable(Sentence(.serveDatasetsFolderUnusable, directory, reason(errno))) }
    guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
      let code = errno
      let holder = code == EWOULDBLOCK ? readPid(fd) : nil
      close(fd)
      guard code == EWOULDBLOCK else {
        throw .unusable(Sentence(.serveDatasetsFolderUnusable, directory, reason(code)))
      }
      let who = holder.map { "pid \($0)" } ?? "pid unknown"
      throw .locked(Sentence(.serveDatasetsFolderLocked, directory, who))
    }
    let pid = Array("\(getpid())\n".utf8)
    guard ftruncate(fd, 0) == 0, pid.withUnsafeBytes({ pwrite(fd, $0.baseAddress, $0.count, 0) }) == pid.count
    else {
      let code = errno
      close(fd)
      throw .unusable(Sentence(.serveDatasetsFolderUnusable, directory, reason(code)))
    }
    return fd
  }

  /// Refuses `directory` when it exists and is not a folder (a server that writes nothing reads it only);
  /// returns nil, as no lock is taken.
  public static func check(_ directory: String) throws(Refusal) -> Int32? {
    var status = stat()
    if stat(directory, &status) == 0, status.st_mode & S_IFMT != S_IFDIR {
      throw .notAFolder(Sentence(.serveDatasetsFolderNotFolder, directory, kind(status.st_mode)))
    }
    return nil
  }

  /// The pid the lock file names, if it names one.
  private static func readPid(_ fd: Int32) -> Int? {
    var bytes = [UInt8](repeating: 0, count: 32)
    let count = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
    guard count > 0 else { return nil }
    let text = String(decoding: bytes[..<count], as: UTF8.self).split(separator: "\n").first ?? ""
    return Int(text).flatMap { $0 > 0 ? $0 : nil }
  }

  /// Makes `directory` and its missing parents; the last one 0700 (written datasets are the owner's).
  private static func makeFolders(_ directory: String) -> Bool {
    for slash in directory.indices.dropFirst() where directory[slash] == "/" {
      let parent = String(directory[..<slash])
      if mkdir(parent, 0o755) != 0, errno != EEXIST { return false }
    }
    return mkdir(directory, 0o700) == 0 || errno == EEXIST
  }

  private static func reason(_ code: Int32) -> String { String(cString: strerror(code)) }

  /// What a path that is not a regular file is, in the reader's language.
  static func kind(_ mode: mode_t) -> Sentence {
    switch mode & S_IFMT {
    case S_IFLNK: Sentence(.mbtilesASymbolicLink)
    case S_IFDIR: Sentence(.mbtilesAFolder)
    case S_IFIFO: Sentence(.mbtilesAFIFO)
    case S_IFCHR, S_IFBLK: Sentence(.mbtilesADevice)
    case S_IFREG: Sentence(.fileKindRegular)
    default: Sentence(.fileKindSpecial)
    }
  }
}
