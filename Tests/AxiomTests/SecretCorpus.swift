import Glibc

/// Log lines with secrets of every kind embedded in varied text, from a seeded generator: the same seed
/// gives the same corpus, so a failure can be replayed.
struct SecretCorpus {
    enum Kind: String, CaseIterable {
        case apiKey, bearerToken, password, nwcURI, nwcSecret, invoice, preimage, urlCredentials, email, jwt
    }

    struct Secret {
        let kind: Kind
        /// What must not appear in the output.
        let value: String
        /// Whether no 17-character piece of it may appear either (a 16-character prefix may stay).
        let checkPieces: Bool
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
            secrets.append(contentsOf: secret)
            parts.append(text)
        }
        let last = pick(Self.fillers)
        fillers.append(last)
        parts.append(last)
        return Line(text: parts.joined(separator: " "), secrets: secrets, fillers: fillers)
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
                    "ghp_" + chars(Self.alnum, 36), "AKIA" + chars(Self.upperAlnum, 16),
                    "KEY0" + chars(Self.alnum, 26) + "_" + chars(Self.alnum, 22), "sk-" + chars(Self.alnum, 48),
                    "xoxb-" + chars(Self.digits, 12) + "-" + chars(Self.alnum, 24), "AIza" + chars(Self.alnum, 35),
                ]) : chars(Self.alnum, 32)
            // A key without a recognisable prefix is only findable under its name.
            let named = ["api_key=\(key)", "\"apiKey\": \"\(key)\"", "X-Api-Key: \(key)", "apikey=\(key)&x=1"]
            let text = pick(prefixed ? named + ["with key \(key)", "(\(key))"] : named)
            return (text, [Secret(kind: .apiKey, value: key, checkPieces: true)])
        case .bearerToken:
            let token = chars(Self.token68, 24 + Int(rng.next() % 24)) + pick(["", "=", "=="])
            let text = pick([
                "Authorization: Bearer \(token)", "authorization=\"Bearer \(token)\"", "sent bearer \(token)",
                "{\"Authorization\":\"Bearer \(token)\"}", "access_token=\(token)",
            ])
            return (text, [Secret(kind: .bearerToken, value: token, checkPieces: true)])
        case .password:
            let password = chars(Self.passwordChars, 10 + Int(rng.next() % 11))
            let text = pick([
                "password=\(password)", "{\"password\":\"\(password)\"}", "pwd: \(password)",
                "db_password = '\(password)'", "passwd=\"\(password)\"", "client_secret=\(password)",
                "PASSWORD=\(password)",
            ])
            return (text, [Secret(kind: .password, value: password, checkPieces: password.count > 16)])
        case .nwcURI:
            let secret = chars(Self.hexDigits, 64)
            let relay = pick(["wss%3A%2F%2Frelay.getalby.com%2Fv1", "wss://relay.damus.io", "wss%3A%2F%2Fnos.lol"])
            var uri = "nostr+walletconnect://\(chars(Self.hexDigits, 64))?relay=\(relay)&secret=\(secret)"
            if rng.next() % 2 == 0 { uri += "&lud16=\(chars(Self.lower, 6))@getalby.com" }
            let text = pick(["connecting \(uri)", "uri=\"\(uri)\"", "<\(uri)>", "{\"nwc\":\"\(uri)\"}"])
            return (
                text,
                [
                    Secret(kind: .nwcURI, value: uri, checkPieces: false),
                    Secret(kind: .nwcSecret, value: secret, checkPieces: true),
                ]
            )
        case .nwcSecret:
            let secret = chars(Self.hexDigits, 64)
            let text = pick(["secret=\(secret)", "nwc secret \(secret)", "\"secret\": \"\(secret)\"", "key \(secret)"])
            return (text, [Secret(kind: .nwcSecret, value: secret, checkPieces: true)])
        case .invoice:
            let hrp = pick(["lnbc", "lntb", "lnbcrt"]) + pick(["", "10n", "2500u", "1m", "150p"])
            var invoice = hrp + "1" + chars(Self.bech32, 180 + Int(rng.next() % 120))
            if rng.next() % 5 == 0 { invoice = invoice.uppercased() }
            let text = pick([
                "paying \(invoice)", "invoice=\(invoice)", "{\"invoice\":\"\(invoice)\"}", "lightning:\(invoice)",
                "bolt11 \(invoice),",
            ])
            return (text, [Secret(kind: .invoice, value: invoice, checkPieces: true)])
        case .preimage:
            var preimage = chars(Self.hexDigits, 64)
            if rng.next() % 4 == 0 { preimage = preimage.uppercased() }
            let text = pick([
                "preimage=\(preimage)", "preimage: \(preimage)", "{\"preimage\":\"\(preimage)\"}",
                "settled \(preimage).",
            ])
            return (text, [Secret(kind: .preimage, value: preimage, checkPieces: true)])
        case .urlCredentials:
            let user = chars(Self.lower, 5 + Int(rng.next() % 6))
            let password = chars(Self.urlPasswordChars, 10 + Int(rng.next() % 8))
            let scheme = pick(["https", "postgres", "redis", "amqp", "ftp"])
            let url = "\(scheme)://\(user):\(password)@\(pick(["db.internal", "api.example.com", "10.0.0.7"])):5432/x"
            let text = pick(["fetch \(url) failed", "url=\(url)", "(\(url))"])
            return (
                text,
                [
                    Secret(kind: .urlCredentials, value: "\(user):\(password)", checkPieces: false),
                    Secret(kind: .urlCredentials, value: password, checkPieces: false),
                ]
            )
        case .email:
            let email =
                chars(Self.lower, 3 + Int(rng.next() % 6)) + pick([".", "_", "+", ""]) + chars(Self.alnum, 3) + "@"
                + chars(Self.lower, 4 + Int(rng.next() % 6)) + pick([".com", ".org", ".io", ".com.tr"])
            let text = pick(["contact \(email)", "user=\(email)", "<\(email)>", "(\(email))", "\"\(email)\""])
            return (text, [Secret(kind: .email, value: email, checkPieces: false)])
        case .jwt:
            let jwt =
                "eyJ" + chars(Self.base64url, 20) + ".eyJ" + chars(Self.base64url, 40) + "." + chars(Self.base64url, 43)
            let text = pick(["id_token=\(jwt)", "jwt \(jwt)", "{\"session\":\"\(jwt)\"}"])
            return (text, [Secret(kind: .jwt, value: jwt, checkPieces: true)])
        }
    }

    // MARK: Leak check

    /// Whether `secret` or, when it asks, any 17-byte piece of it occurs in `text`.
    static func leaks(_ secret: Secret, in text: [UInt8]) -> Bool {
        let value = Array(secret.value.utf8)
        if contains(text, value[...]) { return true }
        guard secret.checkPieces, value.count > 17 else { return false }
        for start in 0...(value.count - 17) where contains(text, value[start..<start + 17]) { return true }
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
