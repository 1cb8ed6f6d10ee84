#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Where an ``ELFFile`` reads its bytes from: a file the caller mapped, or a descriptor it opened.
///
/// The reader never opens a path itself: the caller decides how the file is reached (the plugin host reads the
/// descriptor it checked, so the file it loads is the file it read).
package protocol ELFBytes {
    /// The size of the file in bytes.
    var count: Int { get }

    /// Calls `body` with the `length` bytes at `offset`, valid only during the call; nil when the range leaves the
    /// file or cannot be read.
    func withBytes<Result>(at offset: Int, count length: Int, _ body: (UnsafeRawBufferPointer) -> Result) -> Result?
}

extension ELFBytes {
    /// Whether `length` bytes at `offset` lie inside the file; false for negative values.
    @inlinable package func contains(_ offset: Int, _ length: Int) -> Bool {
        offset >= 0 && length >= 0 && offset <= count && length <= count - offset
    }

    /// Whether `length` bytes at `offset` lie inside the file, for 64-bit values read from it.
    @inlinable package func contains(_ offset: UInt64, _ length: UInt64) -> Bool {
        guard let offset = Int(exactly: offset), let length = Int(exactly: length) else { return false }
        return contains(offset, length)
    }
}

/// A file mapped in memory by the caller, who keeps the mapping alive while the reader is used.
package struct MappedELFBytes: ELFBytes {
    /// The first byte of the mapping.
    package let base: UnsafeRawPointer
    /// The size of the mapping in bytes.
    package let count: Int

    /// Reads the `count` bytes at `base`.
    @inlinable package init(base: UnsafeRawPointer, count: Int) {
        self.base = base
        self.count = count
    }

    @inlinable package func withBytes<Result>(
        at offset: Int, count length: Int, _ body: (UnsafeRawBufferPointer) -> Result
    ) -> Result? {
        guard contains(offset, length) else { return nil }
        return body(UnsafeRawBufferPointer(start: base + offset, count: length))
    }

    /// The NUL-terminated string at `offset`, or nil when it runs past the end of the file.
    package func string(at offset: Int) -> String? {
        guard offset >= 0, offset < count else { return nil }
        let start = base + offset
        guard let end = memchr(start, 0, count - offset) else { return nil }
        return String(
            decoding: UnsafeRawBufferPointer(start: start, count: UnsafeRawPointer(end) - start), as: UTF8.self)
    }
}

/// A file open at a descriptor, read with `pread` range by range: nothing of it is mapped, so a file truncated
/// meanwhile is a short read, not a `SIGBUS`.
package struct DescriptorELFBytes: ELFBytes {
    /// The open file; the caller closes it.
    package let descriptor: Int32
    /// Its size, from `fstat` on the same descriptor.
    package let count: Int

    /// Reads the file open at `descriptor`, of `count` bytes.
    package init(descriptor: Int32, count: Int) {
        self.descriptor = descriptor
        self.count = count
    }

    package func withBytes<Result>(
        at offset: Int, count length: Int, _ body: (UnsafeRawBufferPointer) -> Result
    ) -> Result? {
        guard contains(offset, length) else { return nil }
        return withUnsafeTemporaryAllocation(byteCount: max(length, 1), alignment: 8) { buffer -> Result? in
            var done = 0
            while done < length {
                let read = pread(descriptor, buffer.baseAddress! + done, length - done, off_t(offset + done))
                if read < 0, errno == EINTR { continue }
                guard read > 0 else { return nil }
                done += read
            }
            return body(UnsafeRawBufferPointer(rebasing: buffer[0..<length]))
        }
    }
}

extension UnsafeRawBufferPointer {
    // Little-endian fields; the reader has checked the file's byte order and the range.
    @inlinable package func u16(_ offset: Int) -> UInt16 {
        UInt16(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt16.self))
    }
    @inlinable package func u32(_ offset: Int) -> UInt32 {
        UInt32(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }
    @inlinable package func u64(_ offset: Int) -> UInt64 {
        UInt64(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// The bytes of the NUL-terminated string at `offset`, or nil when `offset` is outside or no NUL follows.
    package func cString(at offset: Int) -> UnsafeRawBufferPointer? {
        guard offset >= 0, offset < count, let start = baseAddress else { return nil }
        guard let end = memchr(start + offset, 0, count - offset) else { return nil }
        return UnsafeRawBufferPointer(start: start + offset, count: UnsafeRawPointer(end) - (start + offset))
    }
}
