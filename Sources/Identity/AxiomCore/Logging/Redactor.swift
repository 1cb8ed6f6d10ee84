import Logging

// How a line is scanned, once, left to right, over its UTF-8 bytes:
//
//   byte ──not a word start──▶ copied (lazily: nothing is copied until the first redaction)
//     │                        (a `%XX` escape counts as one punctuation byte: URL-encoded text has words too)
//     │
//     └─word start─▶ scheme://… (NWC URI: all of it; other URLs: user:pass@)
//                    local@domain.tld (email)
//                    sensitive-key [=:] value (password=…, "token": "…", Authorization: Bearer …)
//                    64+ hex digits (NWC secret, preimage): a 16-character prefix is kept
//                    lnbc…/lntb…/lnbcrt…/lnurl… (Lightning): a 16-character prefix is kept
//                    sk_live_…, ghp_…, AKIA…/ASIA…, nsec1…, eyJ… (API keys, JWTs): the prefix is kept
//                    Bearer …/Basic … (tokens)
//                    -----BEGIN … PRIVATE KEY----- (PEM): the body, up to the END line
//
// Separators and quotes may come plain (`=`, `:`, `"`), JSON-escaped inside a string (`\"`) or percent-encoded
// (`%3D`, `%3A`, `%22`, `%20` or `+` for a space), so `api_key%3D…` and `%22api_key%22%3A%22…%22` are found
// like `api_key=…`.
//
// A line without secrets costs one pass and no allocation: the original string is returned.

/// Removes secrets from log text: API keys, bearer and basic credentials, passwords, PEM private keys, cloud
/// access keys, NWC connection URIs and secrets, Lightning invoices and preimages beyond a short prefix,
/// credentials in URLs, and email addresses, in plain, JSON-escaped and URL-encoded text.
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

    /// How many leading characters of an invoice or a 64-hex value are kept for correlation (16: enough to find the invoice in a wallet's history, too little to pay it).
    package var prefixLength: Int

    /// Creates a redactor keeping `prefixLength` characters of invoices and hex secrets.
    public init(prefixLength: Int = 16) {
        self.prefixLength = max(0, prefixLength)
    }

    /// The text with every secret replaced by ``marker`` (or cut after a short prefix).
    ///
    /// Redacting is idempotent: a redacted line redacted again is the same line. A line the scan changes is
    /// scanned again until a pass changes nothing (a marker put in can end a value differently for the next
    /// pass, in broken encodings the fuzzer finds), at most `maximumPasses` times. A line without secrets
    /// costs one pass; a line with some, usually two.
    public func redact(_ text: String) -> String {
        var current = text
        for _ in 0..<Self.maximumPasses {
            var input = current
            let redacted: String? = input.withUTF8 { bytes in
                var scan = Scan(input: bytes, prefixLength: prefixLength)
                return scan.run()
            }
            guard let redacted, redacted != current else { break }
            current = redacted
        }
        return current
    }

    /// How many times `redact(_:)` scans a line at most.
    static let maximumPasses = 8

    /// The value with every string in it redacted, recursively.
    package func redact(_ value: Logger.MetadataValue) -> Logger.MetadataValue {
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
    package func redact(_ metadata: Logger.Metadata) -> Logger.Metadata {
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
    /// `token`, `api_key`/`apikey`/`api-key`/`api.key`, `authorization`, `access_key`, `credential`, `cookie`,
    /// `private`, `signature` or `mnemonic` (any case); ends in `session`, `session_id` or `sessid` (`PHPSESSID`,
    /// `JSESSIONID`; not `session_count`); or is `auth`, `pwd`, `pin` or `sig`.
    package static func isSensitiveKey(_ key: String) -> Bool {
        var key = key
        return key.withUTF8 { isSensitiveKey($0[...]) }
    }

    static func isSensitiveKey(_ key: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        let count = key.count
        if count <= 4 {
            return matches(key, key.startIndex, "auth") || matches(key, key.startIndex, "pass")
                || count == 3
                    && (matches(key, key.startIndex, "pwd") || matches(key, key.startIndex, "pin")
                        || matches(key, key.startIndex, "sig"))
        }
        // Every name is checked on every log line: dispatch on the first letter of the needles instead of
        // trying each needle at each position.
        var index = key.startIndex
        while index < key.endIndex {
            switch lower(key[index]) {
            case 0x70:  // p
                if matches(key, index, "pass") || matches(key, index, "private") { return true }
            case 0x73:  // s
                if matches(key, index, "secret") || matches(key, index, "signature") { return true }
                if matches(key, index, "session") && isSessionEnd(key, index + 7)
                    || matches(key, index, "sessid") && isSessionEnd(key, index + 6)
                {
                    return true
                }
            case 0x74:  // t
                if matches(key, index, "token") { return true }
            case 0x61:  // a
                if matches(key, index, "api") && matchesAfterSeparator(key, index + 3, "key")
                    || matches(key, index, "access") && matchesAfterSeparator(key, index + 6, "key")
                    || matches(key, index, "authorization")
                {
                    return true
                }
            case 0x63:  // c
                if matches(key, index, "credential") || matches(key, index, "cookie") { return true }
            case 0x6D:  // m
                if matches(key, index, "mnemonic") { return true }
            default:
                break
            }
            index += 1
        }
        return false
    }

    /// Whether `lowercase` follows at `index`, directly or after one `_`, `-` or `.` (`api_key`, `apiKey`).
    private static func matchesAfterSeparator(
        _ key: Slice<UnsafeBufferPointer<UInt8>>, _ index: Int, _ lowercase: StaticString
    ) -> Bool {
        if matches(key, index, lowercase) { return true }
        guard index < key.endIndex, key[index] == 0x5F || key[index] == 0x2D || key[index] == 0x2E else { return false }
        return matches(key, index + 1, lowercase)
    }

    /// Whether a session name ends at `index`, or after an `id` or `key` suffix: `session_id` names a secret,
    /// `session_count` does not.
    private static func isSessionEnd(_ key: Slice<UnsafeBufferPointer<UInt8>>, _ index: Int) -> Bool {
        var index = index
        if index < key.endIndex, key[index] == 0x5F || key[index] == 0x2D || key[index] == 0x2E { index += 1 }
        return index == key.endIndex || (matches(key, index, "id") && index + 2 == key.endIndex)
            || (matches(key, index, "key") && index + 3 == key.endIndex)
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
/// The value of a hex digit (the caller checked `isHex`).
@inline(__always) private func hexValue(_ b: UInt8) -> UInt8 { isDigit(b) ? b &- 0x30 : (b | 0x20) &- 0x57 }

// MARK: - Scanner

private struct Scan {
    let input: UnsafeBufferPointer<UInt8>
    let prefixLength: Int
    /// Built only once something is redacted.
    var output: [UInt8] = []
    var redacted = false
    /// Input before this index is already in `output` (or replaced).
    var copied = 0
    /// Word starts before this index lie inside a run already checked for URLs and emails: a suffix of a run
    /// ends at the same byte, so it cannot match where the whole run did not.
    var runChecked = 0
    /// The same for field names: a suffix of a name holds no needle the whole name lacks. Names stop at `+` and
    /// `%`, runs do not, so `msg=hello+api_key%3D…` still checks `api_key`.
    var keyChecked = 0

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
                // `%22api_key%22`: the escape is punctuation, and the key after it starts a word. The hex digits
                // of an escape may also begin a long hex secret (`…%` then 64 digits): that is checked first.
                if b == 0x25, escape(at: i) != nil {
                    if let next = hex(i + 1) {
                        i = next
                        previousIsAlnum = isAlnum(input[next - 1])
                    } else {
                        i += 3
                    }
                    continue
                }
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

    /// The byte a `%XX` escape at `index` stands for, or nil if there is none.
    @inline(__always)
    func escape(at index: Int) -> UInt8? {
        guard index + 2 < count, input[index] == 0x25, isHex(input[index + 1]), isHex(input[index + 2]) else {
            return nil
        }
        return hexValue(input[index + 1]) << 4 | hexValue(input[index + 2])
    }

    /// The byte at `index` as URL-encoded text means it, and how many bytes it takes (1, or 3 for `%XX`).
    @inline(__always)
    func decoded(at index: Int) -> (byte: UInt8, length: Int)? {
        guard index < count else { return nil }
        if let byte = escape(at: index) { return (byte, 3) }
        return (input[index], 1)
    }

    /// Past blanks between a name, its separator and its value: spaces, tabs and `%20`, or else `+` (a space in
    /// URL-encoded text, where a `+` of the value itself is written `%2B`). Not both: after a real space, a `+`
    /// is the value's (`Bearer +abc/def==`).
    @inline(__always)
    func skipBlanks(_ index: Int) -> Int {
        var p = index
        while let (byte, length) = decoded(at: p), byte == 0x20 || byte == 0x09 { p += length }
        if p > index { return p }
        while p < count && input[p] == 0x2B { p += 1 }
        return p
    }

    /// Tries every rule at the start of a word; returns where scanning resumes, or nil if none matched.
    ///
    /// Every word of every line comes here, so each rule is called only when the bytes around the word allow
    /// it: a `:` or an escape after the run for URLs, an `@` or an escape for emails, a separator in reach for
    /// keys, and the first letter for the shapes.
    mutating func wordStart(_ i: Int) -> Int? {
        if i >= runChecked {
            // Like `run(from:while: isLocalPart)`, but a `%XX` escape ends the run: `jane%40example.com`.
            var runEnd = i
            while runEnd < count {
                let b = input[runEnd]
                if b == 0x25 && escape(at: runEnd) != nil { break }
                guard isLocalPart(b) else { break }
                runEnd += 1
            }
            runChecked = runEnd
            if runEnd < count {
                let after = input[runEnd]
                if after == 0x3A || after == 0x25, let next = uri(i, schemeEnd: runEnd) { return next }
                if after == 0x40 || after == 0x25, let next = email(i, localEnd: runEnd) { return next }
            }
        }
        if i >= keyChecked {
            let keyEnd = run(from: i, while: isKeyChar)
            keyChecked = keyEnd
            if let next = keyValue(i, keyEnd: keyEnd) { return next }
        }
        let first = input[i]
        if isHex(first), let next = hex(i) { return next }
        switch first {
        case 0x6C, 0x4C: return lightning(i)  // l L
        case 0x62, 0x42: return authScheme(i) ?? pem(i)  // b B
        case 0x73, 0x72, 0x70, 0x67, 0x78, 0x41, 0x4B, 0x6E, 0x4E, 0x65: return apiKey(i)  // s r p g x A K n N e
        default: return nil
        }
    }

    /// `nostr+walletconnect://…` whole; `scheme://user:pass@host` up to the `@`. Also URL-encoded:
    /// `nostr%2Bwalletconnect%3A%2F%2F…`, `https%3A%2F%2Fuser%3Apass%40host`.
    mutating func uri(_ i: Int, schemeEnd: Int) -> Int? {
        // Every word of a line ends a run: leave at once unless a `:` or an escape follows it.
        guard schemeEnd < count, input[schemeEnd] == 0x3A || input[schemeEnd] == 0x25 else { return nil }
        var schemeEnd = schemeEnd
        var isNWC = false
        var encoded = false
        // The run stops at an escaped `+`: `nostr%2Bwalletconnect`.
        if schemeEnd - i >= 5, hasPrefix("%2bwalletconnect", at: schemeEnd), hasPrefix("nostr", at: schemeEnd - 5) {
            schemeEnd += 16
            isNWC = true
            encoded = true
        }
        guard let colon = decoded(at: schemeEnd), colon.byte == 0x3A else { return nil }  // :
        encoded = encoded || colon.length == 3
        // The scheme ends the run, which may begin earlier: `connecting+nostr+walletconnect:` in a form body.
        isNWC =
            isNWC || (schemeEnd - i >= 19 && hasPrefix("nostr+walletconnect", at: schemeEnd - 19))
            || (schemeEnd - i >= 18 && hasPrefix("nostrwalletconnect", at: schemeEnd - 18))
        var bodyStart = schemeEnd + colon.length
        var slashes = false
        if let first = decoded(at: bodyStart), first.byte == 0x2F,
            let second = decoded(at: bodyStart + first.length), second.byte == 0x2F
        {
            slashes = true
            bodyStart += first.length + second.length
        }
        if isNWC {
            var end = bodyStart
            // A backslash is no part of a URI: it escapes the quote that ends one inside a JSON string.
            while end < count && !endsURI(input[end]) && input[end] != 0x5C {
                // In URL-encoded text the URI ends where an encoded quote, blank or bracket does.
                if encoded, let byte = escape(at: end), endsURI(byte) { break }
                end += 1
            }
            guard end > bodyStart else { return nil }
            replace(bodyStart..<end)
            return end
        }
        guard slashes else { return nil }
        // The authority ends at `/`, `?` or `#`, plain or encoded; its last `@` (or `%40`) ends the credentials.
        // It also ends at `&`, which starts the next query field of the text around an encoded URL, and at `[`,
        // which credentials never hold (an IPv6 host starts with it, after the `@`): text that another rule
        // redacted (`&secret=…?…`, `Bearer …%2F…`) must not let a second pass run on to a later `@`. The marker
        // that this rule itself left at the start of the authority is passed over.
        var p = bodyStart
        var at = -1
        if hasExactPrefix("[REDACTED]", at: p) { p += markerBytes.count }
        while p < count {
            let b = input[p]
            if endsURI(b) || b == 0x2F || b == 0x3F || b == 0x23 || b == 0x26 || b == 0x5B { break }
            if b == 0x40 {
                at = p
            } else if b == 0x25, let byte = escape(at: p) {
                if endsURI(byte) || byte == 0x2F || byte == 0x3F || byte == 0x23 || byte == 0x26 { break }
                if byte == 0x40 { at = p }
                p += 3
                continue
            }
            p += 1
        }
        guard at > bodyStart else { return nil }
        replace(bodyStart..<at)
        return at
    }

    /// `local@domain.tld` (or `local%40domain.tld`), whole; in URL-encoded text the local part may hold `%2B`
    /// (`jane%2Bwallet%40example.com`).
    mutating func email(_ i: Int, localEnd: Int) -> Int? {
        guard localEnd < count else { return nil }
        let domainStart: Int
        if input[localEnd] == 0x40 {
            domainStart = localEnd + 1
        } else if escape(at: localEnd) == 0x40 {
            domainStart = localEnd + 3
        } else {
            return nil
        }
        var end = run(from: domainStart, while: isDomainChar)
        while end > domainStart && !isAlnum(input[end - 1]) { end -= 1 }
        // The last label is the top-level domain: two letters at least, after a dot.
        var dot = end - 1
        while dot > domainStart && input[dot] != 0x2E { dot -= 1 }
        guard dot > domainStart, end - dot > 2 else { return nil }
        for k in (dot + 1)..<end where !isAlpha(input[k]) { return nil }
        var start = i
        while start - 3 >= copied, escape(at: start - 3) == 0x2B {
            let before = start - 3
            var wordStart = before
            while wordStart > copied && isLocalPart(input[wordStart - 1]) && input[wordStart - 1] != 0x25 {
                wordStart -= 1
            }
            guard wordStart < before else { break }
            start = wordStart
        }
        replace(start..<end)
        return end
    }

    /// Where the quote around a name or value is, in any of its spellings: `"` or `'`, JSON-escaped once or
    /// more (`\"`, `\\\"`), or percent-encoded (`%22`, `%27`). Returns the backslashes before it, where the quote
    /// starts, and the quote's byte and length.
    @inline(__always)
    func quote(at index: Int) -> (backslashes: Int, at: Int, byte: UInt8, length: Int)? {
        var p = index
        while p < count && input[p] == 0x5C { p += 1 }
        guard let (byte, length) = decoded(at: p), isQuote(byte) else { return nil }
        return (p - index, p, byte, length)
    }

    /// `password=…`, `"api_key": "…"`, `Authorization: Bearer …`, `\"token\":\"…\"`, `api_key%3D…`,
    /// `%22api_key%22%3A%22…%22`.
    mutating func keyValue(_ i: Int, keyEnd: Int) -> Int? {
        // Most words of a clean line are followed by a blank and another word: before parsing the spellings of
        // quotes, blanks and separators, check that a separator can follow at all.
        var q = keyEnd
        while q < count {
            let b = input[q]
            guard b == 0x20 || b == 0x09 || b == 0x2B || b == 0x5C || isQuote(b) else { break }
            q += 1
        }
        guard q < count, input[q] == 0x3D || input[q] == 0x3A || input[q] == 0x25 else { return nil }  // = : %
        var p = keyEnd
        if let closing = quote(at: p) { p = closing.at + closing.length }
        p = skipBlanks(p)
        guard let separator = decoded(at: p), separator.byte == 0x3D || separator.byte == 0x3A else {
            return nil  // = :
        }
        if separator.byte == 0x3A, let first = decoded(at: p + separator.length), first.byte == 0x2F,
            let second = decoded(at: p + separator.length + first.length), second.byte == 0x2F
        {
            return nil  // a URL: its scheme is not a field name
        }
        guard Redactor.isSensitiveKey(input[i..<keyEnd]) else { return nil }
        // After a plain `=` or `:`, a `+` starts the value (`passwd=+x`); after an encoded one it is a space.
        let valueStart = p + separator.length
        var v =
            separator.length == 1 && valueStart < count && input[valueStart] == 0x2B
            ? valueStart : skipBlanks(valueStart)
        guard v < count else { return nil }

        // A quoted value up to its closing quote: the same quote, after as many backslashes as the opening one
        // (JSON inside a string escapes its quotes; a quote inside the value is escaped once more).
        if let opening = quote(at: v) {
            let contentStart = opening.at + opening.length
            var close = contentStart
            while close < count {
                if opening.length == 3 {
                    if escape(at: close) == opening.byte { break }
                } else if input[close] == opening.byte {
                    var backslashes = 0
                    while close - backslashes > contentStart && input[close - backslashes - 1] == 0x5C {
                        backslashes += 1
                    }
                    if backslashes == opening.backslashes { break }
                }
                close += 1
            }
            let contentEnd = close < count && opening.length == 1 ? close - opening.backslashes : close
            guard contentEnd > contentStart else { return nil }
            replace(contentStart..<contentEnd)
            return min(close + opening.length, count)
        }
        // `Authorization: Bearer abc`: the scheme word stays, the credentials go, up to where any unquoted value
        // ends (not where a token's characters end, as for a bare `Bearer …`: a redacted line redacted again must
        // come out the same, and its second pass sees `Basic [REDACTED]…`, no token).
        if let schemeEnd = authSchemeWordEnd(v) {
            let credentials = skipBlanks(schemeEnd)
            if credentials > schemeEnd && credentials < count { v = credentials }
        }
        // A PEM key keeps its header.
        if let next = pem(afterDashes: v) { return next }
        // An unquoted value ends where the next field starts. An encoded `&` ends it only when the separator was
        // encoded too: in a form body, `%26` is part of the value.
        var end = v
        while end < count && !endsValue(input[end]) {
            if separator.length == 3, escape(at: end) == 0x26 { break }
            end += 1
        }
        guard end > v else { return nil }
        replace(v..<end)
        return end
    }

    /// 64 or more hex digits: an NWC secret, a preimage, a private key. A prefix stays for correlation.
    mutating func hex(_ i: Int) -> Int? {
        guard i < count, isHex(input[i]) else { return nil }
        let hexEnd = run(from: i, while: isHex)
        guard hexEnd - i >= 64 else { return nil }
        let end = run(from: hexEnd, while: isAlnum)
        replace(min(i + prefixLength, end)..<end)
        return end
    }

    /// BOLT 11 invoices (`lnbc`, `lntb`, `lnbcrt`, `lntbs`, `lnsb`) and LNURLs, any case: a prefix stays.
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

    /// Keys with a recognisable prefix: Stripe, OpenAI, GitHub, Slack, AWS (long-lived `AKIA` and temporary
    /// `ASIA`), Google, Telnyx, GitLab, npm, Nostr private keys (`nsec1`), JWTs.
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
            guard hasExactPrefix("AKIA", at: i) || hasExactPrefix("ASIA", at: i) || hasExactPrefix("AIza", at: i)
            else { return nil }
            keep = 4
        case 0x4B:  // K
            guard hasExactPrefix("KEY", at: i), i + 3 < count, isDigit(input[i + 3]) else { return nil }
            keep = 3
        case 0x6E, 0x4E:  // n N
            if hasExactPrefix("npm_", at: i) {
                keep = 4
            } else if hasPrefix("nsec1", at: i) {  // bech32: either case
                keep = 5
            } else {
                return nil
            }
        case 0x65:  // e
            guard hasExactPrefix("eyJ", at: i) else { return nil }
            keep = 0
        default:
            return nil
        }
        // These keys are letters, digits, `_`, `-` and `.` (JWTs): a `+` (a space in a form body) or `/` ends one,
        // so a key written next to it (`AKIA…+aws_secret_access_key%3D…`) is still checked.
        let end = run(from: i, while: isKeyChar)
        guard end - i >= keep + 16 else { return nil }
        replace((i + keep)..<end)
        return end
    }

    /// Where `Bearer` or `Basic` (any case) ends, if a whole word of the two starts at `i`.
    func authSchemeWordEnd(_ i: Int) -> Int? {
        guard lower(input[i]) == 0x62 else { return nil }  // b
        if hasPrefix("bearer", at: i) && !(i + 6 < count && isAlnum(input[i + 6])) { return i + 6 }
        if hasPrefix("basic", at: i) && !(i + 5 < count && isAlnum(input[i + 5])) { return i + 5 }
        return nil
    }

    /// `Bearer <token>`, `Basic <base64>`: the scheme stays, the credentials go. In URL-encoded text the blank
    /// may be `+` or `%20`, and the credentials may hold `%2B`, `%2F` and `%3D`.
    mutating func authScheme(_ i: Int) -> Int? {
        guard let schemeEnd = authSchemeWordEnd(i) else { return nil }
        let isBasic = schemeEnd == i + 5
        let p = skipBlanks(schemeEnd)
        guard p > schemeEnd, p < count else { return nil }
        // Dashes are token characters, but `bearer -----BEGIN … PRIVATE KEY-----` is a key, not a token.
        if input[p] == 0x2D, let next = pem(afterDashes: p) { return next }
        var end = p
        while end < count {
            if isTokenChar(input[end]) {
                end += 1
            } else if let byte = escape(at: end), isTokenChar(byte) {
                end += 3
            } else {
                break
            }
        }
        guard end - p >= 8 else { return nil }
        if isBasic {
            // Prose ("Basic authentication") is not base64: demand a digit, a symbol or an inner capital.
            var looksEncoded = false
            for k in p..<end {
                let b = input[k]
                if isDigit(b) || b == 0x3D || b == 0x2B || b == 0x2F || b == 0x25 || (k > p && (b &- 0x41) < 26) {
                    looksEncoded = true
                    break
                }
            }
            guard looksEncoded else { return nil }
        }
        replace(p..<end)
        return end
    }

    /// `-----BEGIN RSA PRIVATE KEY-----`, `-----BEGIN+PRIVATE+KEY-----`: the body up to `-----END`, whatever it
    /// holds (newlines, `\n` written by a JSON encoder, `%0A`). A key cut off before its END line is cut off in
    /// the output too: everything after the header goes.
    mutating func pem(_ i: Int) -> Int? {
        guard lower(input[i]) == 0x62, i > 0, input[i - 1] == 0x2D, hasPrefix("begin", at: i) else { return nil }
        var p = i + 5
        var isPrivate = false
        let limit = min(count, i + 96)
        // A header is words and blanks (`RSA PRIVATE KEY`, `EC+PRIVATE+KEY`, `OPENSSH%20PRIVATE%20KEY`); anything
        // else is not one, so a rule that shortens the text after `BEGIN` cannot make a header of it.
        while p < limit && input[p] != 0x2D {
            let b = input[p]
            guard isAlnum(b) || b == 0x20 || b == 0x2B || b == 0x25 || b == 0x5F else { return nil }
            if lower(b) == 0x70 && hasPrefix("private", at: p) { isPrivate = true }
            p += 1
        }
        guard isPrivate, p < limit else { return nil }
        let bodyStart = run(from: p) { $0 == 0x2D }
        var end = bodyStart
        while end < count && !(input[end] == 0x2D && hasPrefix("-----end", at: end)) { end += 1 }
        guard end > bodyStart else { return nil }
        replace(bodyStart..<end)
        guard end < count else { return end }
        // Scanning resumes after `-----END`, so no later rule can take the word `END` into a secret of its own
        // (`-----END+x@example.com` as an email): the next pass would no longer find the END line and would take
        // everything after the header for the body. What follows `END` is scanned as usual.
        return end + 8
    }

    /// ``pem(_:)`` for a value that starts with the header's dashes.
    mutating func pem(afterDashes v: Int) -> Int? {
        guard input[v] == 0x2D else { return nil }
        let begin = run(from: v) { $0 == 0x2D }
        guard begin < count else { return nil }
        return pem(begin)
    }
}

private let markerBytes: [UInt8] = Array(Redactor.marker.utf8)
