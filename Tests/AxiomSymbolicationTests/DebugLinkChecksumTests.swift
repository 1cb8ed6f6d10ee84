import CAxiomDwarf
import Testing

/// The CRC-32 a `.gnu_debuglink` records of its debug file, computed without libdwarf: a debug file whose checksum
/// differs is not used, so a wrong value would reject every separate debug file.
@Suite("The debug link's checksum")
struct DebugLinkChecksumTests {
    /// CRC-32 one bit at a time, as its definition gives it: the reference the table-driven one is held to.
    static func bitwise(_ bytes: [UInt8], from start: UInt32 = 0) -> UInt32 {
        var crc = ~start
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc >> 1) ^ (0xEDB8_8320 & (0 &- (crc & 1))) }
        }
        return ~crc
    }

    static func checksum(_ bytes: ArraySlice<UInt8>, from start: UInt32 = 0) -> UInt32 {
        bytes.withUnsafeBufferPointer { UInt32(axiom_debuglink_crc32($0.baseAddress, $0.count, start)) }
    }

    @Test("It is the CRC-32 of gnu_debuglink and zlib: the check value of \"123456789\", and 0 for no bytes")
    func checkValue() {
        #expect(Self.checksum(ArraySlice("123456789".utf8)) == 0xCBF4_3926)
        #expect(Self.checksum([]) == 0)
    }

    @Test("Any length, any alignment and any split into pieces give what the bit-by-bit definition gives")
    func againstDefinition() {
        let bytes = (0..<4_099).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 7) }
        for start in [0, 1, 3, 7] {
            for length in [0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 1_000, 4_000] where start + length <= bytes.count {
                let piece = bytes[start..<(start + length)]
                #expect(Self.checksum(piece) == Self.bitwise(Array(piece)), "bytes \(start)..<\(start + length)")
            }
        }
        let whole = Self.bitwise(bytes)
        for split in [1, 5, 8, 13, 2_048, 4_098] {
            let first = Self.checksum(bytes[..<split])
            #expect(Self.checksum(bytes[split...], from: first) == whole, "split at \(split)")
        }
    }
}
