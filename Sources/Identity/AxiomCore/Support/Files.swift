#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The names in a directory, without `.` and `..`, in the order the directory gives them; nil (with `errno` set) if
/// it cannot be read. For the plugin host's search paths and the crash tool's folders.
package func listDirectory(_ path: String) -> [String]? {
    guard let directory = opendir(path) else { return nil }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
        let name = withUnsafePointer(to: entry.pointee.d_name) { pointer in
            pointer.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
        }
        if name != "." && name != ".." { names.append(name) }
    }
    return names
}

/// Why ``readWholeFile(_:limit:)`` read nothing.
package enum WholeFileFailure: Error, Sendable {
    /// It could not be opened, sized or read: the `errno` the call left.
    case unreadable(errno: Int32)
    /// It is larger than the limit: its size.
    case tooLarge(size: Int)
}

/// The bytes of the file at `path`, sized before it is read so that a file over `limit` bytes is refused without
/// being read. A FIFO or a device at the path (which has no size) reads as empty, without waiting for a writer; a
/// file that shrinks while it is read gives what was there.
package func readWholeFile(_ path: String, limit: Int) throws(WholeFileFailure) -> [UInt8] {
    let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    guard fd >= 0 else { throw .unreadable(errno: errno) }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else { throw .unreadable(errno: errno) }
    let size = Int(info.st_size)
    guard size <= limit else { throw .tooLarge(size: size) }
    var bytes = [UInt8](repeating: 0, count: size)
    var filled = 0
    while filled < size {
        let count = bytes.withUnsafeMutableBytes { buffer in read(fd, buffer.baseAddress! + filled, size - filled) }
        if count < 0 && errno == EINTR { continue }
        guard count >= 0 else { throw .unreadable(errno: errno) }
        if count == 0 { break }
        filled += count
    }
    bytes.removeLast(size - filled)
    return bytes
}

/// Writes every byte of `bytes` to `descriptor`, again after a short write or an interruption; false (with `errno`
/// set) when a write fails. For log lines, the crash tool's output and the plugin scanner's verdicts.
@discardableResult
package func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
    var rest = bytes
    while !rest.isEmpty {
        let written = write(descriptor, rest.baseAddress, rest.count)
        if written < 0 && errno == EINTR { continue }
        guard written > 0 else { return false }
        rest = UnsafeRawBufferPointer(rebasing: rest[written...])
    }
    return true
}

/// Writes all of `text`'s UTF-8 to `descriptor`, as the raw-buffer form writes bytes.
@discardableResult
package func writeAll(_ descriptor: Int32, _ text: String) -> Bool {
    var text = text
    return text.withUTF8 { writeAll(descriptor, UnsafeRawBufferPointer($0)) }
}

/// Writes every byte of `bytes` to `descriptor`, as the raw-buffer form does.
@discardableResult
package func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
    bytes.withUnsafeBytes { writeAll(descriptor, $0) }
}
