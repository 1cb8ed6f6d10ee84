#if canImport(Glibc)
import Glibc
#endif

/// The function symbols of an ELF64 little-endian file's `.symtab`, so a test can tell
/// which function of the probe a pc lies in without the symbolicator.
struct ELFSymbols {
    struct Function {
        var name: String
        var range: Range<UInt64>
    }

    let functions: [Function]

    init?(path: String) {
        guard let data = readFileBytes(path) else { return nil }
        guard data.count > 64, data[0] == 0x7f, data[1] == 0x45, data[4] == 2, data[5] == 1 else { return nil }
        func u16(_ offset: Int) -> Int { Int(data[offset]) | Int(data[offset + 1]) << 8 }
        func u32(_ offset: Int) -> Int { u16(offset) | u16(offset + 2) << 16 }
        func u64(_ offset: Int) -> UInt64 { UInt64(u32(offset)) | UInt64(u32(offset + 4)) << 32 }

        let sectionHeaders = Int(u64(0x28))
        let sectionHeaderSize = u16(0x3a)
        let sectionCount = u16(0x3c)
        var functions: [Function] = []
        for index in 0..<sectionCount {
            let header = sectionHeaders + index * sectionHeaderSize
            guard u32(header + 4) == 2 else { continue }  // SHT_SYMTAB
            let symbolsOffset = Int(u64(header + 0x18))
            let symbolsSize = Int(u64(header + 0x20))
            let stringsHeader = sectionHeaders + u32(header + 0x28) * sectionHeaderSize
            let stringsOffset = Int(u64(stringsHeader + 0x18))
            for symbol in stride(from: symbolsOffset, to: symbolsOffset + symbolsSize, by: 24) {
                let value = u64(symbol + 8)
                let size = u64(symbol + 16)
                guard data[symbol + 4] & 0xf == 2, size > 0 else { continue }  // STT_FUNC
                let nameStart = stringsOffset + u32(symbol)
                let nameEnd = data[nameStart...].firstIndex(of: 0) ?? nameStart
                let name = String(decoding: data[nameStart..<nameEnd], as: UTF8.self)
                functions.append(Function(name: name, range: value..<value + size))
            }
        }
        self.functions = functions
    }

    /// The function whose range holds the file-relative address.
    func function(containing address: UInt64) -> Function? {
        functions.first { $0.range.contains(address) }
    }
}
