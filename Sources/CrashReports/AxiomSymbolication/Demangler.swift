import CAxiomDwarf

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Turns linkage names into readable names: Swift through the runtime's `swift_demangle`, C++ (Itanium
/// `_Z…`) through `__cxa_demangle` when the process has one (looked up with `dlsym`, so this module does
/// not link libstdc++), anything else unchanged.
enum Demangler {
    private typealias CxaDemangle =
        @convention(c) (
            UnsafePointer<CChar>?, UnsafeMutablePointer<CChar>?, UnsafeMutablePointer<Int>?,
            UnsafeMutablePointer<Int32>?
        ) -> UnsafeMutablePointer<CChar>?

    /// `__cxa_demangle`, resolved once. A plain C function pointer is immutable and safe to share.
    private static let cxaDemangle: CxaDemangle? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__cxa_demangle") else { return nil }
        return unsafeBitCast(symbol, to: CxaDemangle.self)
    }()

    static func isSwiftMangled(_ name: String) -> Bool {
        name.hasPrefix("$s") || name.hasPrefix("$S") || name.hasPrefix("_T0") || name.hasPrefix("$e")
            || name.hasPrefix("@__swiftmacro_")
    }

    /// The demangled form of `name`, or `name` itself when it is not mangled or cannot be demangled.
    static func demangle(_ name: String) -> String {
        if isSwiftMangled(name) {
            var copy = name
            let demangled: String? = copy.withUTF8 { utf8 in
                utf8.withMemoryRebound(to: CChar.self) { chars in
                    guard let result = swift_demangle(chars.baseAddress, chars.count, nil, nil, 0) else { return nil }
                    defer { free(result) }
                    return String(cString: result)
                }
            }
            return demangled ?? name
        }
        if name.hasPrefix("_Z"), let cxaDemangle {
            var status: Int32 = 0
            let result = name.withCString { cxaDemangle($0, nil, nil, &status) }
            guard let result else { return name }
            defer { free(result) }
            return status == 0 ? llvmStyleCloneSuffixes(String(cString: result)) : name
        }
        return name
    }

    /// `__cxa_demangle` writes GCC clone suffixes as ` [clone .cold.1]`; llvm-symbolizer, lldb and the Swift
    /// backtracer write ` (.cold.1)`. Follow the LLVM tools so reports read the same.
    static func llvmStyleCloneSuffixes(_ name: String) -> String {
        guard name.contains(" [clone ") else { return name }
        var result = ""
        var rest = Substring(name)
        while let start = rest.firstRange(of: " [clone ") {
            result += rest[..<start.lowerBound]
            let afterStart = rest[start.upperBound...]
            guard let end = afterStart.firstIndex(of: "]") else {
                result += rest[start.lowerBound...]
                return result
            }
            result += " (" + afterStart[..<end] + ")"
            rest = afterStart[afterStart.index(after: end)...]
        }
        return result + rest
    }
}
