import Logging

// How a line is scanned, once, left to right, over its UTF-8 bytes:
//
//   byte ──not a word start──▶ copied (lazily: nothing is copied until the first redaction)
//     │
//     └─word start─▶ scheme://… (NWC URI: all of it; other URLs: user:pass@)
//                    local@domain.tld (email)
//                    sensitive-key [=:] value (password=…, "token": "…", Authorization: Bearer …)
//                    64+ hex digits (NWC secret, preimage): a 16-character prefix is kept
//                    lnbc…/lntb…/lnbcrt…/lnurl… (Lightning): a 16-character prefix is kept
//                    sk_live_…, ghp_…, AKIA…, eyJ… (API keys, JWTs): the prefix is kept
//                    Bearer …/Basic … (tokens)
//
// A line without secrets costs one pass and no allocation: the original string is returned.

/// Removes secrets from log text: API keys, bearer tokens, passwords, NWC connection URIs and secrets,
/// Lightning invoices and preimages beyond a short prefix, credentials in URLs, and email addresses.
///
/// It is a hand-written scanner over UTF-8 bytes, not a set of regular expressions: a line without secrets
/// is returned as it came, without a copy. ``RedactingLogHandler`` runs it on every message and metadata
/// value, so call sites cannot forget it.
///
/// What it cannot know: a password written as plain prose ("my password is hunter2") has no shape and no
/// key, so it is not found. Log secrets as metadata under a sensitive key (`password`, `token`, …) or not
/// at all; such keys are redacted whatever their value looks like.
public struct Redactor: Sendable {
    /// What replaces a secret.
    public static let marker = "[REDACTED]"

    /// How many leading characters of an invoice or a 64-hex value are kept for correlation (seed 000 logs 16).
    public var prefixLength: Int

    /// Creates a redactor keeping `prefixLength` characters of invoices and hex secrets.
    public init(prefixLength: Int = 16) {
        self.prefixLength = max(0, prefixLength)
    }

    /// The text with every secret replaced by ``marker`` (or cut after a short prefix).
    public func redact(_ text: String) -> String {
        var text = text
        let redacted: String? = text.withUTF8 { bytes in
            var scan = Scan(input: bytes, prefixLength: prefixLength)
            return scan.run()
        }
        return redacted ?? text
    }

    /// The value with every string in it redacted, recursively.
    public func redact(_ value: Logger.MetadataValue) -> Logger.MetadataValue {
        switch value {
        case .string(let text):
            let redacted = redact(text)
            // Unchanged text is the same storage: the comparison is a pointer check, and nothing is rebuilt.
            return redacted == text ? value : .string(redacted)
        case .stringConvertible(let convertible):
            return .string(redact(convertible.description))
        case .array(let values):
            return .array(values.map { redact($0) })
        case .dictionary(let metadata):
            return .dictionary(redact(metadata))
        }
    }

    /// The metadata with every value redacted; a value under a sensitive key (`password`, `api_key`,
    /// `authorization`, …) is replaced whole, whatever it looks like.
    public func redact(_ metadata: Logger.Metadata) -> Logger.Metadata {
        var result = metadata
        for (key, value) in metadata {
            if Self.isSensitiveKey(key) {
                result[key] = .string(Self.marker)
                continue
            }
            // Write back only what changed: a clean line costs no dictionary writes.
            if case .string(let text) = value {
                let redacted = redact(text)
                if redacted != text { result[key] = .string(redacted) }
            } else {
                result[key] = redact(value)
            }
        }
        return result
    }

    /// Whether a field name names a secret: it contains `pass` (password, passwd, passphrase), `secret`,
    /// `token`, `api_key`/`apikey`/`api-key`, `authorization`, `access_key`, `credential`, `cookie` or
    /// `private` (any case), or is `auth`, `pwd` or `pin`.
    public static func isSensitiveKey(_ key: String) -> Bool {
        var key = key
        return key.withUTF8 { isSensitiveKey($0[...]) }
    }

    static func isSensitiveKey(_ key: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        let count = key.count
        if count <= 4 {
            return matches(key, key.startIndex, "auth") || matches(key, key.startIndex, "pass")
                || matches(key, key.startIndex, "pwd") && count == 3
                || matches(key, key.startIndex, "pin") && count == 3
        }
        // Every name is checked on every log line: dispatch on the first letter of the needles instead of
        // trying each needle at each position.
        var index = key.startIndex
        while index < key.endIndex {
            switch lower(key[index]) {
            case 0x70:  // p
                if matches(key, index, "pass") || matches(key, index, "private") { return true }
            case 0x73:  // s
                if matches(key, index, "secret") { return true }
            case 0x74:  // t
                if matches(key, index, "token") { return true }
            case 0x61:  // a
                if matches(key, index, "apikey") || matches(key, index, "api_key") || matches(key, index, "api-key")
                    || matches(key, index, "authorization") || matches(key, index, "access_key")
                    || matches(key, index, "accesskey")
                {
                    return true
                }
            case 0x63:  // c
                if matches(key, index, "credential") || matches(key, index, "cookie") { return true }
            default:
                break
            }
            index += 1
        }
        return false
    }

    /// Whether `key` holds `lowercase` (lower-case ASCII) at `index`, in any case. For a whole short key
    /// (`auth`, `pass`) the caller checks the length; inside a longer one, `pass` covers `password`, `passwd`
    /// and `passphrase`, `private` covers `private_key`.
    @inline(__always)
    static func matches(_ key: Slice<UnsafeBufferPointer<UInt8>>, _ index: Int, _ lowercase: StaticString) -> Bool {
        let length = lowercase.utf8CodeUnitCount
        guard index + length <= key.endIndex else { return false }
        let pointer = lowercase.utf8Start
        for k in 0..<length where lower(key[index + k]) != pointer[k] { return false }
        return true
    }
}

// MARK: - Byte classes

@inline(__always) private func lower(_ b: UInt8) -> UInt8 { (b &- 0x41) < 26 ? b | 0x20 : b }
@inline(__always) private func isDigit(_ b: UInt8) -> Bool { (b &- 0x30) < 10 }
@inline(__always) private func isAlpha(_ b: UInt8) -> Bool { ((b | 0x20) &- 0x61) < 26 }
@inline(__always) private func isAlnum(_ b: UInt8) -> Bool { isDigit(b) || isAlpha(b) }
@inline(__always) private func isHex(_ b: UInt8) -> Bool { isDigit(b) || ((b | 0x20) &- 0x61) < 6 }
@inline(__always) private func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
/// Characters of an email's local part (and of a URL scheme, a subset).
@inline(__always) private func isLocalPart(_ b: UInt8) -> Bool {
    isAlnum(b) || b == 0x2E || b == 0x5F || b == 0x25 || b == 0x2B || b == 0x2D  // . _ % + -
}
/// Characters of a field name: `x-api-key`, `client_secret`, `auth.token`.
@inline(__always) private func isKeyChar(_ b: UInt8) -> Bool {
    isAlnum(b) || b == 0x5F || b == 0x2D || b == 0x2E  // _ - .
}
@inline(__always) private func isDomainChar(_ b: UInt8) -> Bool { isAlnum(b) || b == 0x2E || b == 0x2D }
/// Characters of a token68 (RFC 7235) and of API keys: base64, base64url, dots.
@inline(__always) private func isTokenChar(_ b: UInt8) -> Bool {
    isAlnum(b) || b == 0x2D || b == 0x2E || b == 0x5F || b == 0x7E || b == 0x2B || b == 0x2F || b == 0x3D
}
@inline(__always) private func isQuote(_ b: UInt8) -> Bool { b == 0x22 || b == 0x27 }
/// Where a URI ends.
@inline(__always) private func endsURI(_ b: UInt8) -> Bool {
    isSpace(b) || isQuote(b) || b == 0x3C || b == 0x3E || b == 0x60  // < > `
}
/// Where an unquoted value ends: also at `&`, the next query parameter.
@inline(__always) private func endsValue(_ b: UInt8) -> Bool { endsURI(b) || b == 0x26 }

// MARK: - Scanner

private struct Scan {
    let input: UnsafeBufferPointer<UInt8>
    let prefixLength: Int
    /// Built only once something is redacted.
    var output: [UInt8] = []
    var redacted = false
    /// Input before this index is already in `output` (or replaced).
    var copied = 0
    /// Word starts before this index lie inside a run already checked for URLs, emails and keys: a suffix
    /// of a run ends at the same byte, so it cannot match where the whole run did not.
    var runChecked = 0

    init(input: UnsafeBufferPointer<UInt8>, prefixLength: Int) {
        self.input = input
        self.prefixLength = prefixLength
    }

    var count: Int { input.count }

    mutating func run() -> String? {
        var i = 0
        var previousIsAlnum = false
        while i < count {
            let b = input[i]
            guard isAlnum(b) else {
                previousIsAlnum = false
                i += 1
                continue
            }
            if previousIsAlnum {
                i += 1
                continue
            }
            if let next = wordStart(i) {
                i = next
                previousIsAlnum = next > 0 && isAlnum(input[next - 1])
            } else {
                previousIsAlnum = true
                i += 1
            }
        }
        guard redacted else { return nil }
        append(upTo: count)
        return String(decoding: output, as: UTF8.self)
    }

    // MARK: Output

    mutating func append(upTo end: Int) {
        if copied < end { output.append(contentsOf: UnsafeBufferPointer(rebasing: input[copied..<end])) }
        copied = end
    }

    /// Replaces `range` of the input by the marker.
    mutating func replace(_ range: Range<Int>) {
        if !redacted {
            redacted = true
            output.reserveCapacity(count + 16)
        }
        append(upTo: range.lowerBound)
        output.append(contentsOf: markerBytes)
        copied = range.upperBound
    }

    // MARK: Matching

    func run(from start: Int, while predicate: (UInt8) -> Bool) -> Int {
        var end = start
        while end < count && predicate(input[end]) { end += 1 }
        return end
    }

    func hasPrefix(_ lowercase: StaticString, at index: Int) -> Bool {
        Redactor.matches(input[...], index, lowercase)
    }

    func hasExactPrefix(_ prefix: StaticString, at index: Int) -> Bool {
        let length = prefix.utf8CodeUnitCount
        guard index + length <= count else { return false }
        let pointer = prefix.utf8Start
        for k in 0..<length where input[index + k] != pointer[k] { return false }
        return true
    }

    /// Tries every rule at the start of a word; returns where scanning resumes, or nil if none matched.
    mutating func wordStart(_ i: Int) -> Int? {
        if i >= runChecked {
            let runEnd = run(from: i, while: isLocalPart)
            runChecked = runEnd
            if let next = uri(i, schemeEnd: runEnd) ?? email(i, localEnd: runEnd) ?? keyValue(i) { return next }
        }
        return hex(i) ?? lightning(i) ?? apiKey(i) ?? authScheme(i)
    }

    /// `nostr+walletconnect://…` whole; `scheme://user:pass@host` up to the `@`.
    mutating func uri(_ i: Int, schemeEnd: Int) -> Int? {
        guard schemeEnd < count, input[schemeEnd] == 0x3A else { return nil }  // :
        let slashes = schemeEnd + 2 < count && input[schemeEnd + 1] == 0x2F && input[schemeEnd + 2] == 0x2F
        let length = schemeEnd - i
        let isNWC =
            (length == 19 && hasPrefix("nostr+walletconnect", at: i))
            || (length == 18 && hasPrefix("nostrwalletconnect", at: i))
        if isNWC {
            let bodyStart = schemeEnd + (slashes ? 3 : 1)
            let end = run(from: bodyStart) { !endsURI($0) }
            guard end > bodyStart else { return nil }
            replace(bodyStart..<end)
            return end
        }
        guard slashes else { return nil }
        let authorityStart = schemeEnd + 3
        let authorityEnd = run(from: authorityStart) { b in
            !(endsURI(b) || b == 0x2F || b == 0x3F || b == 0x23)  // / ? #
        }
        var at = authorityEnd - 1
        while at >= authorityStart && input[at] != 0x40 { at -= 1 }  // @
        guard at > authorityStart else { return nil }
        replace(authorityStart..<at)
        return at
    }

    /// `local@domain.tld`, whole.
    mutating func email(_ i: Int, localEnd: Int) -> Int? {
        guard localEnd < count, input[localEnd] == 0x40 else { return nil }
        var end = run(from: localEnd + 1, while: isDomainChar)
        while end > localEnd + 1 && !isAlnum(input[end - 1]) { end -= 1 }
        // The last label is the top-level domain: two letters at least, after a dot.
        var dot = end - 1
        while dot > localEnd + 1 && input[dot] != 0x2E { dot -= 1 }
        guard dot > localEnd + 1, end - dot > 2 else { return nil }
        for k in (dot + 1)..<end where !isAlpha(input[k]) { return nil }
        replace(i..<end)
        return end
    }

    /// `password=…`, `"api_key": "…"`, `Authorization: Bearer …`, `\"token\":\"…\"`.
    mutating func keyValue(_ i: Int) -> Int? {
        let keyEnd = run(from: i, while: isKeyChar)
        var p = keyEnd
        if p < count && input[p] == 0x5C { p += 1 }  // a backslash of JSON inside a string
        if p < count && isQuote(input[p]) { p += 1 }
        while p < count && (input[p] == 0x20 || input[p] == 0x09) { p += 1 }
        guard p < count else { return nil }
        let separator = input[p]
        guard separator == 0x3D || separator == 0x3A else { return nil }  // = :
        if separator == 0x3A && p + 2 < count && input[p + 1] == 0x2F && input[p + 2] == 0x2F { return nil }
        guard Redactor.isSensitiveKey(input[i..<keyEnd]) else { return nil }
        var v = p + 1
        while v < count && (input[v] == 0x20 || input[v] == 0x09) { v += 1 }
        guard v < count else { return nil }

        // A quoted value up to its closing quote; inside a string, JSON's quotes arrive escaped (`\"`).
        let escaped = input[v] == 0x5C && v + 1 < count && isQuote(input[v + 1])
        if escaped || isQuote(input[v]) {
            let quoteAt = escaped ? v + 1 : v
            let quote = input[quoteAt]
            let contentStart = quoteAt + 1
            var close = contentStart
            while close < count {
                if input[close] == quote {
                    let backslashed = close > contentStart && input[close - 1] == 0x5C
                    if escaped == backslashed { break }
                }
                close += 1
            }
            let contentEnd = escaped && close < count ? close - 1 : close
            guard contentEnd > contentStart else { return nil }
            replace(contentStart..<contentEnd)
            return min(close + 1, count)
        }
        // `Authorization: Bearer abc`: the scheme word stays, the credentials go.
        if let next = authScheme(v) { return next }
        let end = run(from: v) { !endsValue($0) }
        guard end > v else { return nil }
        replace(v..<end)
        return end
    }

    /// 64 or more hex digits: an NWC secret, a preimage, a private key. A prefix stays for correlation.
    mutating func hex(_ i: Int) -> Int? {
        guard isHex(input[i]) else { return nil }
        let hexEnd = run(from: i, while: isHex)
        guard hexEnd - i >= 64 else { return nil }
        let end = run(from: hexEnd, while: isAlnum)
        replace(min(i + prefixLength, end)..<end)
        return end
    }

    /// BOLT 11 invoices (`lnbc`, `lntb`, `lnbcrt`, `lntbs`, `lnsb`) and LNURLs: a prefix stays.
    mutating func lightning(_ i: Int) -> Int? {
        guard lower(input[i]) == 0x6C, i + 1 < count, lower(input[i + 1]) == 0x6E else { return nil }  // l n
        guard
            hasPrefix("lnbc", at: i) || hasPrefix("lntb", at: i) || hasPrefix("lnsb", at: i)
                || hasPrefix("lnurl", at: i)
        else { return nil }
        let end = run(from: i, while: isAlnum)
        guard end - i >= 20 else { return nil }
        replace(min(i + prefixLength, end)..<end)
        return end
    }

    /// Keys with a recognisable prefix: Stripe, OpenAI, GitHub, Slack, AWS, Google, Telnyx, GitLab, npm, JWTs.
    mutating func apiKey(_ i: Int) -> Int? {
        let keep: Int
        switch input[i] {
        case 0x73:  // s
            if hasExactPrefix("sk_live_", at: i) || hasExactPrefix("sk_test_", at: i) {
                keep = 8
            } else if hasExactPrefix("sk-", at: i) {
                keep = 3
            } else {
                return nil
            }
        case 0x72:  // r
            guard hasExactPrefix("rk_live_", at: i) || hasExactPrefix("rk_test_", at: i) else { return nil }
            keep = 8
        case 0x70:  // p
            guard hasExactPrefix("pk_live_", at: i) else { return nil }
            keep = 8
        case 0x67:  // g
            if hasExactPrefix("ghp_", at: i) || hasExactPrefix("gho_", at: i) || hasExactPrefix("ghs_", at: i)
                || hasExactPrefix("ghu_", at: i)
            {
                keep = 4
            } else if hasExactPrefix("github_pat_", at: i) {
                keep = 11
            } else if hasExactPrefix("glpat-", at: i) {
                keep = 6
            } else {
                return nil
            }
        case 0x78:  // x
            guard hasExactPrefix("xoxb-", at: i) || hasExactPrefix("xoxp-", at: i) || hasExactPrefix("xoxa-", at: i)
            else { return nil }
            keep = 5
        case 0x41:  // A
            guard hasExactPrefix("AKIA", at: i) || hasExactPrefix("AIza", at: i) else { return nil }
            keep = 4
        case 0x4B:  // K
            guard hasExactPrefix("KEY", at: i), i + 3 < count, isDigit(input[i + 3]) else { return nil }
            keep = 3
        case 0x6E:  // n
            guard hasExactPrefix("npm_", at: i) else { return nil }
            keep = 4
        case 0x65:  // e
            guard hasExactPrefix("eyJ", at: i) else { return nil }
            keep = 0
        default:
            return nil
        }
        let end = run(from: i, while: isTokenChar)
        guard end - i >= keep + 16 else { return nil }
        replace((i + keep)..<end)
        return end
    }

    /// `Bearer <token>`, `Basic <base64>`: the scheme stays, the credentials go.
    mutating func authScheme(_ i: Int) -> Int? {
        let first = lower(input[i])
        guard first == 0x62 else { return nil }  // b
        let isBearer = hasPrefix("bearer", at: i) && !(i + 6 < count && isAlnum(input[i + 6]))
        let isBasic = !isBearer && hasPrefix("basic", at: i) && !(i + 5 < count && isAlnum(input[i + 5]))
        guard isBearer || isBasic else { return nil }
        var p = i + (isBearer ? 6 : 5)
        guard p < count, input[p] == 0x20 || input[p] == 0x09 else { return nil }
        while p < count && (input[p] == 0x20 || input[p] == 0x09) { p += 1 }
        let end = run(from: p, while: isTokenChar)
        guard end - p >= 8 else { return nil }
        if isBasic {
            // Prose ("Basic authentication") is not base64: demand a digit, a symbol or an inner capital.
            var looksEncoded = false
            for k in p..<end {
                let b = input[k]
                if isDigit(b) || b == 0x3D || b == 0x2B || b == 0x2F || (k > p && (b &- 0x41) < 26) {
                    looksEncoded = true
                    break
                }
            }
            guard looksEncoded else { return nil }
        }
        replace(p..<end)
        return end
    }
}

private let markerBytes: [UInt8] = Array(Redactor.marker.utf8)
