import AtlasMessages

#if canImport(Glibc)
  import Glibc
#endif

/// A file opened for reading (or standard input for "-"), with the one-sentence errors every reader gives.
package struct InputFile {
  package let fileDescriptor: Int32
  package let path: String
  /// The size of a regular file, 0 for anything else (a pipe, a FIFO, a terminal, a device).
  package let size: Int
  /// Whether it is a regular file, so that bytes can be read back by offset.
  package let isRegular: Bool

  package init(path: String) throws(FormatError) {
    self.path = path
    let fd = path == "-" ? 0 : open(path, O_RDONLY | O_CLOEXEC)
    if fd < 0 { throw .input(.fileCannotOpen, path, String(cString: strerror(errno))) }
    var status = stat()
    guard fstat(fd, &status) == 0 else {
      let reason = String(cString: strerror(errno))
      if fd != 0 { Glibc.close(fd) }
      throw .input(.fileCannotRead, path, reason)
    }
    let type = status.st_mode & S_IFMT
    if type == S_IFDIR {
      if fd != 0 { Glibc.close(fd) }
      throw .input(.fileIsDirectory, path)
    }
    fileDescriptor = fd
    isRegular = type == S_IFREG
    size = isRegular ? Int(status.st_size) : 0
  }

  /// Reads up to `count` bytes; 0 at the end.
  package func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) throws(FormatError) -> Int {
    while true {
      let got = Glibc.read(fileDescriptor, buffer, count)
      if got >= 0 { return got }
      if errno == EINTR { continue }
      throw .input(.fileCannotRead, path, String(cString: strerror(errno)))
    }
  }

  /// Reads up to `count` bytes, waiting only for the first: then as much more as is already waiting (a pipe
  /// hands over 64 KiB a read, too little to share among cores, while a writer that pauses, a person typing,
  /// still gets each line answered at once); 0 at the end.
  package func readWaiting(into buffer: UnsafeMutablePointer<UInt8>, count: Int) throws(FormatError) -> Int {
    var got = try read(into: buffer, count: count)
    guard got > 0, !isRegular else { return got }
    var ready = pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
    while got < count && poll(&ready, 1, 0) == 1 && ready.revents & Int16(POLLIN) != 0 {
      let more = try read(into: buffer + got, count: count - got)
      if more == 0 { break }  // the end: the next read says so again
      got += more
    }
    return got
  }

  package func close() {
    if fileDescriptor != 0 { Glibc.close(fileDescriptor) }
  }
}
