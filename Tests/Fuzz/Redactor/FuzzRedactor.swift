// libFuzzer target: `Redactor.redact` on any text a log line could carry.
//
// On the fuzzer's bytes as text: redacting never traps, is idempotent (a redacted line redacted again is the same
// line), cuts no character in half (no U+FFFD that the input did not have), and changes a line only by putting the
// marker in. Then, from the same bytes, a secret of a known form is built (a password under its key, an API key
// in JSON, a bearer token, an AWS key, a PEM body, an NWC URI, an invoice, a preimage, a JWT, credentials in a
// URL, an email), written plain, JSON-escaped or URL-encoded between words made of the bytes: no 12-character
// piece of it may survive (beyond the prefix the redactor keeps on purpose).

import Axiom
import FuzzSupport

private let redactor = Redactor()

@_cdecl("FuzzRedactor_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, fuzzRedactor)
}

func fuzzRedactor(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let input = UnsafeBufferPointer(start: bytes, count: count)
    let text = String(decoding: input, as: UTF8.self)
    let redacted = redactor.redact(text)
    check(redactor.redact(redacted) == redacted, "not idempotent: \(redacted)")
    check(replacements(in: redacted) <= replacements(in: text), "cut a character: \(redacted)")
    // Bytes, not characters: after the marker a combining mark joins its `]` into another character.
    check(
        redacted == text || contains(Array(redacted.utf8), Array(Redactor.marker.utf8)[...]),
        "changed without a marker: \(redacted)")

    guard count >= 4 else { return 0 }
    var source = ByteSource(input)
    let (line, secret, kept) = source.secretLine()
    let output = Array(redactor.redact(line).utf8)
    let value = Array(secret.utf8)
    // A piece that the line has anyway, with the secret cut to its kept prefix, is no leak: bytes from the fuzzer
    // repeat, and so do the secrets and words built from them.
    let lineBytes = Array(line.utf8)
    var background = lineBytes
    if let at = firstIndex(of: value[...], in: lineBytes) {
        background = Array(lineBytes[..<at]) + value[..<kept] + [0x20] + lineBytes[(at + value.count)...]
    }
    if value.count < 12 {
        check(
            kept > 0 || !contains(output, value[...]) || contains(background, value[...]),
            "leaked \(secret) from \(line)")
    } else {
        for start in max(0, kept - 11)...(value.count - 12) {
            let piece = value[start..<start + 12]
            check(
                !contains(output, piece) || contains(background, piece), "leaked a piece of \(secret) from \(line)")
        }
    }
    return 0
}

/// `precondition` that also prints its message in a release build, so a crash input explains itself.
private func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError(message()) }
}

private func replacements(in text: String) -> Int {
    text.unicodeScalars.reduce(0) { $0 + ($1 == "\u{FFFD}" ? 1 : 0) }
}

private func contains(_ haystack: [UInt8], _ needle: ArraySlice<UInt8>) -> Bool {
    firstIndex(of: needle, in: haystack) != nil
}

private func firstIndex(of needle: ArraySlice<UInt8>, in haystack: [UInt8]) -> Int? {
    guard !needle.isEmpty, haystack.count >= needle.count else { return needle.isEmpty ? 0 : nil }
    var start = 0
    while start <= haystack.count - needle.count {
        if haystack[start..<start + needle.count].elementsEqual(needle) { return start }
        start += 1
    }
    return nil
}

/// Reads the fuzzer's bytes as choices and characters; past the end it repeats them, so every input gives a line.
private struct ByteSource {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    mutating func next() -> UInt8 {
        defer { index += 1 }
        return bytes[index % bytes.count] &+ UInt8(truncatingIfNeeded: index / bytes.count)
    }

    mutating func pick<T>(_ options: [T]) -> T { options[Int(next()) % options.count] }

    mutating func chars(_ alphabet: [Character], _ count: Int) -> String {
        String((0..<count).map { _ in alphabet[Int(next()) % alphabet.count] })
    }

    static let words = Array("abcdefghijklmnopqrstuvwxyz0123456789 .,;()")
    static let alnum = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
    static let upper = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
    static let hex = Array("0123456789abcdef")
    static let base64 = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/")
    static let password = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%^*()-_+[]{}:;,.?~@=")
    static let bech32 = Array("qpzry9x8gf2tvdw0s3jn54khce6mua7l")

    /// A line with one secret in it, the secret as written in the line, and how many of its characters may stay.
    mutating func secretLine() -> (String, String, Int) {
        let form = next()
        let encoding = next() % 3
        var (context, secret, kept) = secret(form)
        let encode: (String) -> String =
            switch encoding {
            case 0: { $0 }
            case 1: jsonEscaped
            default: urlEncoded
            }
        kept = encode(String(secret.prefix(kept))).count
        context = encode(context)
        secret = encode(secret)
        let before = chars(Self.words, Int(next() % 24))
        let after = chars(Self.words, Int(next() % 24))
        return (before + " " + context + " " + after, secret, kept)
    }

    mutating func secret(_ form: UInt8) -> (String, String, Int) {
        switch form % 11 {
        case 0:
            let value = chars(Self.password, 8 + Int(next() % 24))
            let key = pick(["password", "PASSWORD", "passwd", "pwd", "client_secret", "Api-Key", "accessToken"])
            let context = pick([
                "\(key)=\(value)", "{\"\(key)\":\"\(value)\"}", "\(key): \(value)", "\(key)='\(value)'",
            ])
            return (context, value, 0)
        case 1:
            let value = chars(Self.alnum, 12 + Int(next() % 30))
            let key = pick(["api_key", "apikey", "token", "refresh_token", "session", "cookie", "private_key"])
            return (pick(["{\"\(key)\":\"\(value)\"}", "\"\(key)\": \"\(value)\"", "?\(key)=\(value)&a=1"]), value, 0)
        case 2:
            let value = chars(Self.base64, 12 + Int(next() % 40))
            return (pick(["Authorization: Bearer \(value)", "bearer \(value)", "Basic 1\(value)"]), value, 0)
        case 3:
            let value = pick(["AKIA", "ASIA"]) + chars(Self.upper, 16)
            return (pick(["key \(value)", "aws_access_key_id=\(value)"]), value, 4)
        case 4:
            let body = chars(Self.base64, 64) + "\n" + chars(Self.base64, 4 + Int(next() % 60))
            let type = pick(["", "RSA ", "EC ", "OPENSSH "])
            return ("-----BEGIN \(type)PRIVATE KEY-----\n\(body)\n-----END \(type)PRIVATE KEY-----", body, 0)
        case 5:
            let scheme = pick(["nostr+walletconnect://", "NOSTR+WALLETCONNECT://", "nostr+walletconnect:"])
            let uri = scheme + chars(Self.hex, 64) + "?relay=wss://r.example&secret=" + chars(Self.hex, 64)
            return (pick([uri, "uri=\"\(uri)\"", "<\(uri)>"]), uri, scheme.count)
        case 6:
            let invoice = pick(["lnbc", "LNTB", "lnbcrt"]) + "1" + chars(Self.bech32, 40 + Int(next() % 100))
            return (pick(["pay \(invoice)", "invoice=\(invoice)"]), invoice, 16)
        case 7:
            let preimage = chars(Self.hex, 64)
            return (pick(["preimage \(preimage)", "\"preimage\":\"\(preimage)\""]), preimage, 16)
        case 8:
            let jwt = "eyJ" + chars(Self.alnum, 20) + ".eyJ" + chars(Self.alnum, 30) + "." + chars(Self.alnum, 20)
            return (pick(["jwt \(jwt)", "id_token=\(jwt)"]), jwt, 0)
        case 9:
            let credentials = chars(Self.alnum, 4) + ":" + chars(Self.alnum, 8 + Int(next() % 10))
            return ("fetch https://\(credentials)@db.example.com/x", credentials, 0)
        default:
            let email = chars(Self.alnum, 3 + Int(next() % 8)) + "@" + chars(Self.alnum, 4) + ".com"
            return (pick(["mail \(email)", "<\(email)>"]), email, 0)
        }
    }
}

private func jsonEscaped(_ text: String) -> String {
    var escaped = ""
    for character in text {
        switch character {
        case "\"": escaped += "\\\""
        case "\\": escaped += "\\\\"
        case "\n": escaped += "\\n"
        default: escaped.append(character)
        }
    }
    return escaped
}

private func urlEncoded(_ text: String) -> String {
    var encoded = ""
    for byte in text.utf8 {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            encoded.append(Character(UnicodeScalar(byte)))
        case UInt8(ascii: " "):
            encoded += "+"
        default:
            let hex = String(byte, radix: 16, uppercase: true)
            encoded += "%" + (hex.count == 1 ? "0" + hex : hex)
        }
    }
    return encoded
}
