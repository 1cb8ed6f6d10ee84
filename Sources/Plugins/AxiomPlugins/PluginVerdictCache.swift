import AxiomCore
import AxiomELF
import CAxiomPluginABI

import class AxiomPluginKit.PluginExport

#if canImport(Glibc)
import Glibc
#endif

/// Scanner verdicts on disk, so that a start whose plugins have not changed forks no scanner.
///
/// One file per plugin file, named by its device and inode (`<device>-<inode>.verdict`), holding the rest of the
/// key (size, modification time to the nanosecond, GNU build-id, and the host's ABI hash and toolchain, since a
/// verdict depends on the host that judged it too) and the verdict. A file whose key differs is a miss: the plugin
/// is scanned again and the entry replaced. Entries are written to a temporary file and renamed, so a reader sees
/// a whole entry or none. The cache is outside data: an entry that does not parse is a miss, and a directory that is
/// not the current user's or that others can write is not used at all.
struct PluginVerdictCache {
    let directory: String

    struct Key: Equatable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modified: Int64
        var modifiedNanoseconds: Int64
        var buildID: String

        /// The key of the file open at `descriptor`, described by `info`.
        init(descriptor: Int32, info: stat) {
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
            size = Int64(info.st_size)
            modified = Int64(info.st_mtim.tv_sec)
            modifiedNanoseconds = Int64(info.st_mtim.tv_nsec)
            buildID = (ELFImage.buildID(descriptor: descriptor, size: Int(info.st_size)) ?? []).lowercaseHex
        }

        var fileName: String { "\(device)-\(inode).verdict" }

        var fields: [String] { [String(size), String(modified), String(modifiedNanoseconds), buildID, Self.host] }

        /// What of the host a verdict depends on.
        static let host = "\(AXIOM_PLUGIN_ABI_HASH) \(PluginExport.toolchain)"
    }

    static let tag = "axiom-plugin-cache-1"
    /// Larger entries are not read: far above any real catalog.
    static let maxEntrySize = 64 << 20

    /// The cached verdict for `key`, or nil.
    func verdict(for key: Key) -> PluginVerdict? {
        guard usable(create: false) else { return nil }
        let path = directory + "/" + key.fileName
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid(),
            info.st_size <= Self.maxEntrySize
        else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var done = 0
        while done < bytes.count {
            let count = bytes.withUnsafeMutableBytes {
                pread(descriptor, $0.baseAddress! + done, $0.count - done, off_t(done))
            }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            done += count
        }
        var reader = PluginVerdict.Reader(bytes: bytes)
        guard (try? reader.text()) == Self.tag else { return nil }
        for field in key.fields {
            guard (try? reader.text()) == field else { return nil }
        }
        guard let verdict = try? reader.text(), reader.atEnd else { return nil }
        return PluginVerdict.decode(Array(verdict.utf8))
    }

    /// Stores a verdict; a failure to write only costs a scan next time.
    func store(_ verdict: PluginVerdict, for key: Key) {
        guard usable(create: true) else { return }
        var writer = PluginVerdict.Writer()
        writer.put(Self.tag)
        for field in key.fields { writer.put(field) }
        // The verdict's bytes are UTF-8 netstrings: they nest as one text.
        writer.put(String(decoding: verdict.encoded(), as: UTF8.self))
        let final = directory + "/" + key.fileName
        let temporary = final + ".\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { return }
        writeAll(descriptor, writer.bytes)
        var info = stat()
        let complete = fstat(descriptor, &info) == 0 && Int(info.st_size) == writer.bytes.count
        close(descriptor)
        if !complete || rename(temporary, final) != 0 { unlink(temporary) }
    }

    /// Whether the directory is the current user's and nobody else can write it; with `create`, made (0700) first
    /// when missing, with its missing parents.
    private func usable(create: Bool) -> Bool {
        var info = stat()
        if lstat(directory, &info) != 0 {
            guard create, errno == ENOENT else { return false }
            var path = directory.hasPrefix("/") ? "" : "."
            for component in directory.split(separator: "/") {
                path += "/" + component
                _ = mkdir(path, 0o700)
            }
            guard lstat(directory, &info) == 0 else { return false }
        }
        return info.st_mode & S_IFMT == S_IFDIR && info.st_uid == geteuid()
            && info.st_mode & mode_t(S_IWGRP | S_IWOTH) == 0
    }
}
