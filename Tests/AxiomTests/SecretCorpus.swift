import Glibc

/// Log lines with secrets of every kind embedded in varied text, from a seeded generator: the same seed
/// gives the same corpus, so a failure can be replayed.
///
/// Each secret comes in a context (`password=…`, `{"api_key":"…"}`, `Authorization: Bearer …`), with its key
/// name in a random case and spelling, and each context is written plain, JSON-escaped (as inside a JSON
/// string) or URL-encoded, the three ways a secret reaches a log line.
struct SecretCorpus {
    enum Kind: String, CaseIterable {
        case apiKey, namedToken, bearerToken, basicAuth, password, pemKey, cloudKey, nwcURI, nwcSecret, invoice,
            preimage, urlCredentials, email, jwt
    }

    enum Encoding: CaseIterable { case plain, jsonEscaped, urlEncoded }

    struct Secret {
        let kind: Kind
        /// What must not appear in the output, as it is written in the line (encoded like its context).
        let value: String
        /// How many leading characters may stay: a scheme, or the 16-character prefix kept for correlation.
        let kept: Int
    }

    struct Line {
        let text: String
        let secrets: [Secret]
        /// Non-secret text that must survive.
        let fillers: [String]
    }

    private var rng: SplitMix64

    init(seed: UInt64) { rng = SplitMix64(seed: seed) }

    static let fillers = [
        "payment attempt for order 48213 failed", "retrying in 3 s", "wallet answered RATE_LIMITED",
        "Ödeme başarısız oldu", "bağlantı yeniden kuruluyor", "call 7f3 ended with cause 486",
        "layer=client operation=pay", "user tapped Pay", "balance check took 812 ms", "relay closed the socket",
        "the circuit is open", "SIP 503 from gateway", "giving up after 4 attempts", "[nwc] request queued",
        "caught (expected) cancellation", "state: reconnecting -> connected", "amount 1500 msats",
        "code=nwc/RATE_LIMITED domain=nwc", "key=error.nwc.timeout category=network", "telnyx/-32003 after 1.5s",
        "timeout=30s elapsed=250ms", "token bucket refilled", "password reset requested", "Basic plan selected",
        "session ended after 3m12s", "retry_after=1500ms attempt=2", "BEGIN transaction", "secret santa list",
    ]

    mutating func nextLine() -> Line {
        var secrets: [Secret] = []
        var parts: [String] = []
        var fillers: [String] = []
        let count = 1 + Int(rng.next() % 3)
        for _ in 0..<count {
            let filler = pick(Self.fillers)
            fillers.append(filler)
            parts.append(filler)
            let (text, secret) = embed(pick(Kind.allCases))
            let encode = encoder(pick(Encoding.allCases))
            secrets += secret.map { secret in
                let kept = encode(String(secret.value.prefix(secret.kept))).count
                return Secret(kind: secret.kind, value: encode(secret.value), kept: kept)
            }
            parts.append(encode(text))
        }
        let last = pick(Self.fillers)
        fillers.append(last)
        parts.append(last)
        return Line(text: parts.joined(separator: " "), secrets: secrets, fillers: fillers)
    }

    // MARK: Encodings

    /// A character-wise map, so a secret inside a context maps to the same secret, encoded, inside it.
    private mutating func encoder(_ encoding: Encoding) -> (String) -> String {
        switch encoding {
        case .plain:
            return { $0 }
        case .jsonEscaped:
            return { text in
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
        case .urlEncoded:
            let space = pick(["+", "%20"])
            let lowercaseHex = rng.next() % 4 == 0
            return { text in
                var encoded = ""
                for byte in text.utf8 {
                    if isAlnumASCII(byte) || byte == 0x2D || byte == 0x2E || byte == 0x5F || byte == 0x7E {
                        encoded.append(Character(UnicodeScalar(byte)))
                    } else if byte == 0x20 {
                        encoded += space
                    } else {
                        let hex = String(byte, radix: 16, uppercase: !lowercaseHex)
                        encoded += "%" + (hex.count == 1 ? "0" + hex : hex)
                    }
                }
                return encoded
            }
        }
    }

    /// A field name as people write it: `api_key`, `API_KEY`, `api-key`, `apiKey`, `Api_Key`.
    private mutating func spelled(_ name: String) -> String {
        switch rng.next() % 5 {
        case 0: return name
        case 1: return name.uppercased()
        case 2: return String(name.map { $0 == "_" ? "-" : $0 })
        case 3:
            var camel = ""
            var upper = false
            for character in name {
                if character == "_" || character == "-" {
                    upper = true
                } else {
                    camel += upper ? character.uppercased() : String(character)
                    upper = false
                }
            }
            return camel
        default:
            return name.split(separator: "_").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: "_")
        }
    }

    // MARK: Secrets in context

    private mutating func embed(_ kind: Kind) -> (String, [Secret]) {
        switch kind {
        case .apiKey:
            let prefixed = rng.next() % 8 != 0
            let key =
                prefixed
                ? pick([
                    "sk_live_" + chars(Self.alnum, 24), "sk_test_" + chars(Self.alnum, 24),
                    "ghp_" + chars(Self.alnum, 36), "KEY0" + chars(Self.alnum, 26) + "_" + chars(Self.alnum, 22),
                    "sk-" + chars(Self.alnum, 48), "xoxb-" + chars(Self.digits, 12) + "-" + chars(Self.alnum, 24),
                    "AIza" + chars(Self.alnum, 35), "nsec1" + chars(Self.bech32, 58),
                ]) : chars(Self.alnum, 32)
            // A key without a recognisable prefix is only findable under its name.
            let name = spelled(pick(["api_key", "apikey", "x_api_key", "api_token"]))
            let named = [
                "\(name)=\(key)", "\"\(name)\": \"\(key)\"", "{\"\(name)\":\"\(key)\"}", "\(name): \(key)",
                "\(name)=\(key)&x=1",
            ]
            let text = pick(prefixed ? named + ["with key \(key)", "(\(key))"] : named)
            return (text, [Secret(kind: .apiKey, value: key, kept: 0)])
        case .namedToken:
            let token = chars(Self.tokenValue, 16 + Int(rng.next() % 24))
            let name = spelled(
                pick([
                    "access_token", "refresh_token", "token", "secret", "client_secret", "private_key", "session",
                    "session_id", "cookie", "id_token", "auth_token", "sessionid", "signing_secret",
                ]))
            let text = pick([
                "\(name)=\(token)", "\(name): \(token)", "\"\(name)\": \"\(token)\"", "{\"\(name)\":\"\(token)\"}",
                "\(name)='\(token)'", "GET /cb?\(name)=\(token)&page=2", "set \(name) = \"\(token)\"",
            ])
            return (text, [Secret(kind: .namedToken, value: token, kept: 0)])
        case .bearerToken:
            let token = chars(Self.token68, 24 + Int(rng.next() % 24)) + pick(["", "=", "=="])
            let header = spelled("authorization")
            let text = pick([
                "\(header): Bearer \(token)", "\(header)=\"Bearer \(token)\"", "sent bearer \(token)",
                "{\"\(header)\":\"Bearer \(token)\"}", "access_token=\(token)", "BEARER \(token)",
            ])
            return (text, [Secret(kind: .bearerToken, value: token, kept: 0)])
        case .basicAuth:
            let credentials =
                chars(Self.alnum, 3) + chars(Self.digits, 1) + chars(Self.base64, 8 + Int(rng.next() % 30))
                + pick(["", "=", "=="])
            let header = spelled(pick(["authorization", "proxy_authorization"]))
            let text = pick([
                "\(header): Basic \(credentials)", "sent basic \(credentials)",
                "{\"\(header)\":\"Basic \(credentials)\"}",
                "\(header)=Basic \(credentials)",
            ])
            return (text, [Secret(kind: .basicAuth, value: credentials, kept: 0)])
        case .password:
            let password = chars(Self.passwordChars, 10 + Int(rng.next() % 11))
            let name = spelled(pick(["password", "passwd", "pwd", "db_password", "passphrase", "client_secret"]))
            let text = pick([
                "\(name)=\(password)", "{\"\(name)\":\"\(password)\"}", "\(name): \(password)",
                "\(name) = '\(password)'",
                "\(name)=\"\(password)\"", "\"\(name)\": \"\(password)\"",
            ])
            return (text, [Secret(kind: .password, value: password, kept: 0)])
        case .pemKey:
            let type = pick(["", "RSA ", "EC ", "OPENSSH ", "ENCRYPTED "])
            var lines: [String] = []
            for _ in 0..<(2 + Int(rng.next() % 4)) { lines.append(chars(Self.base64, 64)) }
            lines.append(chars(Self.base64, 4 + Int(rng.next() % 60)) + pick(["", "=", "=="]))
            let body = lines.joined(separator: "\n")
            let pem = "-----BEGIN \(type)PRIVATE KEY-----\n\(body)\n-----END \(type)PRIVATE KEY-----"
            let name = spelled(pick(["private_key", "tls_key", "signing_key"]))
            let text = pick([
                "loaded key \(pem)", "{\"\(name)\":\"\(pem)\"}", "\(name)=\(pem)", "pem: \(pem) (from file)",
            ])
            return (text, [Secret(kind: .pemKey, value: body, kept: 0)])
        case .cloudKey:
            let id = pick(["AKIA", "ASIA"]) + chars(Self.upperAlnum, 16)
            var secrets = [Secret(kind: .cloudKey, value: id, kept: 0)]
            var text = pick([
                "aws key \(id)", "\(spelled("aws_access_key_id"))=\(id)", "{\"AccessKeyId\":\"\(id)\"}", "creds \(id),",
            ])
            if rng.next() % 2 == 0 {
                let secret = chars(Self.base64, 40)
                text += pick([" \(spelled("aws_secret_access_key"))=\(secret)", ", \"SecretAccessKey\": \"\(secret)\""])
                secrets.append(Secret(kind: .cloudKey, value: secret, kept: 0))
            }
            return (text, secrets)
        case .nwcURI:
            let secret = chars(Self.hexDigits, 64)
            let relay = pick(["wss%3A%2F%2Frelay.getalby.com%2Fv1", "wss://relay.damus.io", "wss%3A%2F%2Fnos.lol"])
            let scheme = pick(["nostr+walletconnect://", "NOSTR+WALLETCONNECT://", "nostr+walletconnect:"])
            var uri = "\(scheme)\(chars(Self.hexDigits, 64))?relay=\(relay)&secret=\(secret)"
            if rng.next() % 2 == 0 { uri += "&lud16=\(chars(Self.lower, 6))@getalby.com" }
            if rng.next() % 5 == 0 { uri = uri.uppercased() }
            let text = pick(["connecting \(uri)", "uri=\"\(uri)\"", "<\(uri)>", "{\"nwc\":\"\(uri)\"}"])
            return (
                text,
                [
                    Secret(kind: .nwcURI, value: uri, kept: scheme.count),
                    Secret(kind: .nwcSecret, value: uri.contains(secret) ? secret : secret.uppercased(), kept: 16),
                ]
            )
        case .nwcSecret:
            var secret = chars(Self.hexDigits, 64)
            if rng.next() % 4 == 0 { secret = secret.uppercased() }
            let text = pick(["secret=\(secret)", "nwc secret \(secret)", "\"secret\": \"\(secret)\"", "key \(secret)"])
            // Under a key the whole value goes; bare, a 16-character prefix stays.
            return (text, [Secret(kind: .nwcSecret, value: secret, kept: 16)])
        case .invoice:
            let hrp = pick(["lnbc", "lntb", "lnbcrt"]) + pick(["", "10n", "2500u", "1m", "150p"])
            var invoice = hrp + "1" + chars(Self.bech32, 180 + Int(rng.next() % 120))
            if rng.next() % 5 == 0 { invoice = invoice.uppercased() }
            let text = pick([
                "paying \(invoice)", "invoice=\(invoice)", "{\"invoice\":\"\(invoice)\"}", "lightning:\(invoice)",
                "bolt11 \(invoice),",
            ])
            return (text, [Secret(kind: .invoice, value: invoice, kept: 16)])
        case .preimage:
            var preimage = chars(Self.hexDigits, 64)
            if rng.next() % 4 == 0 { preimage = preimage.uppercased() }
            let text = pick([
                "preimage=\(preimage)", "preimage: \(preimage)", "{\"preimage\":\"\(preimage)\"}",
                "settled \(preimage).",
            ])
            return (text, [Secret(kind: .preimage, value: preimage, kept: 16)])
        case .urlCredentials:
            let user = chars(Self.lower, 5 + Int(rng.next() % 6))
            let password = chars(Self.urlPasswordChars, 10 + Int(rng.next() % 8))
            let scheme = pick(["https", "postgres", "redis", "amqp", "ftp", "HTTPS"])
            let url = "\(scheme)://\(user):\(password)@\(pick(["db.internal", "api.example.com", "10.0.0.7"])):5432/x"
            let text = pick(["fetch \(url) failed", "url=\(url)", "(\(url))", "{\"dsn\":\"\(url)\"}"])
            return (text, [Secret(kind: .urlCredentials, value: "\(user):\(password)", kept: 0)])
        case .email:
            let email =
                chars(Self.lower, 3 + Int(rng.next() % 6)) + pick([".", "_", "+", ""]) + chars(Self.alnum, 3) + "@"
                + chars(Self.lower, 4 + Int(rng.next() % 6)) + pick([".com", ".org", ".io", ".com.tr"])
            let text = pick(["contact \(email)", "user=\(email)", "<\(email)>", "(\(email))", "\"\(email)\""])
            return (text, [Secret(kind: .email, value: email, kept: 0)])
        case .jwt:
            let jwt =
                "eyJ" + chars(Self.base64url, 20) + ".eyJ" + chars(Self.base64url, 40) + "." + chars(Self.base64url, 43)
            let text = pick(["id_token=\(jwt)", "jwt \(jwt)", "{\"session\":\"\(jwt)\"}", "sent \(jwt) upstream"])
            return (text, [Secret(kind: .jwt, value: jwt, kept: 0)])
        }
    }

    // MARK: Leak check

    /// How long a piece of a secret may not appear anywhere in the output.
    static let pieceLength = 12

    /// Whether `secret`, or any 12-byte piece of it that is not wholly inside its kept prefix, occurs in `text`.
    static func leaks(_ secret: Secret, in text: [UInt8]) -> Bool {
        let value = Array(secret.value.utf8)
        if secret.kept == 0 && contains(text, value[...]) { return true }
        guard value.count >= pieceLength else { return false }
        let first = max(0, secret.kept - pieceLength + 1)
        guard first <= value.count - pieceLength else { return false }
        for start in first...(value.count - pieceLength) where contains(text, value[start..<start + pieceLength]) {
            return true
        }
        return false
    }

    /// Whether `needle` occurs in `haystack`. With `memchr` and `memcmp`: the check runs for every piece of
    /// every secret of a large corpus, in debug builds.
    static func contains(_ haystack: [UInt8], _ needle: ArraySlice<UInt8>) -> Bool {
        guard let first = needle.first, haystack.count >= needle.count else { return false }
        return haystack.withUnsafeBytes { h in
            needle.withUnsafeBytes { n in
                var offset = 0
                let last = h.count - n.count
                while offset <= last {
                    guard let hit = memchr(h.baseAddress! + offset, Int32(first), last - offset + 1) else {
                        return false
                    }
                    let at = UnsafeRawPointer(hit) - h.baseAddress!
                    if memcmp(hit, n.baseAddress!, n.count) == 0 { return true }
                    offset = at + 1
                }
                return false
            }
        }
    }

    // MARK: Alphabets

    static let digits = Array("0123456789")
    static let lower = Array("abcdefghijklmnopqrstuvwxyz")
    static let alnum = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
    static let upperAlnum = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
    static let hexDigits = Array("0123456789abcdef")
    static let base64 = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/")
    static let tokenValue = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
    static let bech32 = Array("qpzry9x8gf2tvdw0s3jn54khce6mua7l")
    static let base64url = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")
    static let token68 = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~+/")
    static let passwordChars = Array(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%^*()-_+[]{}:;,.?~@=")
    static let urlPasswordChars = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!$*()-_+;,.~=")

    private mutating func chars(_ alphabet: [Character], _ count: Int) -> String {
        var text = ""
        for _ in 0..<count { text.append(alphabet[Int(rng.next() % UInt64(alphabet.count))]) }
        return text
    }

    private mutating func pick<T>(_ options: [T]) -> T { options[Int(rng.next() % UInt64(options.count))] }
}

private func isAlnumASCII(_ byte: UInt8) -> Bool {
    (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
}

/// A small seeded generator (Steele, Lea and Flood's SplitMix64): reproducible across runs and platforms.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
