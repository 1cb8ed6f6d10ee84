import Axiom
import Testing

@Suite("Redactor")
struct RedactorTests {
    let redactor = Redactor()
    let hex64 = "3f1c9a7b2e5d48f0a6c1b9e2d7f3a8c5b4e1f6a9d2c7b8e3f4a1c6d9b2e5f8a7"
    let invoice =
        "lnbc2500u1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdq5xysxxatsyp3k7enxv4jsxqzpuaztrnwngzn3kdzw5hydlzf03qdgm2hdq27cqv3agm2awhz5se903vruatfhq77w3ls4evs3ch9zw97j25emudupq63nyw24cg27h2rspfj9srp"

    @Test("text without secrets comes back unchanged")
    func clean() {
        for text in [
            "payment failed: code=nwc/RATE_LIMITED layer=client attempt=2",
            "category=network key=error.network.timeout code=telnyx/-32003 disposition=default",
            "Ödeme başarısız oldu; lütfen yeniden deneyin. tokens_left 3", "", "a", "Basic information about lnbc",
            "see https://example.com/path?q=1 and user@ (not an email)",
        ] {
            #expect(redactor.redact(text) == text)
        }
    }

    @Test("passwords, tokens and API keys under their keys")
    func keyValues() {
        #expect(redactor.redact("login password=hunter2!x user=bob") == "login password=[REDACTED] user=bob")
        #expect(
            redactor.redact(#"{"user":"bob","password":"p@ss w0rd"}"#) == #"{"user":"bob","password":"[REDACTED]"}"#)
        #expect(redactor.redact(#"body="{\"api_key\":\"abc123\"}""#) == #"body="{\"api_key\":\"[REDACTED]\"}""#)
        #expect(redactor.redact("x-api-key: 9f8e7d6c5b4a") == "x-api-key: [REDACTED]")
        #expect(redactor.redact("GET /v1?access_token=abc.def&page=2") == "GET /v1?access_token=[REDACTED]&page=2")
        #expect(
            redactor.redact("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc")
                == "Authorization: Bearer [REDACTED]")
        #expect(redactor.redact("sent bearer abcdefgh12345678 upstream") == "sent bearer [REDACTED] upstream")
        #expect(redactor.redact("Authorization: Basic dXNlcjpwYXNz") == "Authorization: Basic [REDACTED]")
        #expect(redactor.redact("key sk_live_4eC39HqLyjWDarjtT1zdp7dc used") == "key sk_live_[REDACTED] used")
        #expect(redactor.redact("telnyx KEY01234ABCDEF5678901234567 rejected") == "telnyx KEY[REDACTED] rejected")
    }

    @Test("NWC connection URIs and secrets")
    func nwc() {
        let uri = "nostr+walletconnect://\(hex64)?relay=wss%3A%2F%2Frelay.example.com&secret=\(hex64)&lud16=a@b.co"
        #expect(redactor.redact("connecting \(uri) now") == "connecting nostr+walletconnect://[REDACTED] now")
        #expect(redactor.redact("nwc_secret=\(hex64)") == "nwc_secret=[REDACTED]")
    }

    @Test("invoices and preimages keep a 16-character prefix")
    func lightning() {
        #expect(
            redactor.redact("pay \(invoice) failed")
                == "pay lnbc2500u1pvjluez[REDACTED] failed".replacingFirst16(of: invoice))
        #expect(redactor.redact("preimage: \(hex64)") == "preimage: \(hex64.prefix(16))[REDACTED]")
        #expect(redactor.redact("LIGHTNING:\(invoice.uppercased())").count < 40)
    }

    @Test("credentials in URLs and email addresses")
    func urlsAndEmails() {
        #expect(
            redactor.redact("fetch https://alice:s3cr3t@api.example.com/v1 failed")
                == "fetch https://[REDACTED]@api.example.com/v1 failed")
        #expect(redactor.redact("postgres://u:p@db:5432/x") == "postgres://[REDACTED]@db:5432/x")
        #expect(redactor.redact("mail jane.doe+wallet@example.co.uk, please") == "mail [REDACTED], please")
    }

    @Test("URL-encoded keys: api_key%3D… and %22api_key%22%3A%22…%22 (lines that leaked before)")
    func urlEncodedKeys() {
        #expect(
            redactor.redact("GET /cb?next=%2Fv1%3Fapi_key%3DAbC123xyz789%26page%3D2 done")
                == "GET /cb?next=%2Fv1%3Fapi_key%3D[REDACTED]%26page%3D2 done")
        #expect(
            redactor.redact("body=%7B%22user%22%3A%22bob%22%2C%22api_key%22%3A%22AbC123xyz789%22%7D")
                == "body=%7B%22user%22%3A%22bob%22%2C%22api_key%22%3A%22[REDACTED]%22%7D")
        #expect(redactor.redact("q=x+API-KEY%3dAbC123xyz789") == "q=x+API-KEY%3d[REDACTED]")
        #expect(
            redactor.redact("f=%22Password%22%3A+%22p%40ss+w0rd%22&x=1") == "f=%22Password%22%3A+%22[REDACTED]%22&x=1")
        // In a form body `%26` is part of the value; only a raw `&` ends it.
        #expect(redactor.redact("password=a%26b%3Dc&next=1") == "password=[REDACTED]&next=1")
        #expect(
            redactor.redact("h=Authorization%3A+Bearer+abcDEF123456%2Bxyz%3D rest")
                == "h=Authorization%3A+Bearer+[REDACTED] rest")
        #expect(
            redactor.redact("cb=https%3A%2F%2Falice%3As3cr3t%40db.example.com%2Fx")
                == "cb=https%3A%2F%2F[REDACTED]%40db.example.com%2Fx")
        #expect(redactor.redact("to=jane.doe%40example.com&x=1") == "to=[REDACTED]&x=1")
        #expect(
            redactor.redact("u=nostr%2Bwalletconnect%3A%2F%2F\(hex64)%3Fsecret%3D\(hex64)%22 end")
                == "u=nostr%2Bwalletconnect%3A%2F%2F[REDACTED]%22 end")
        #expect(redactor.redact("v=%\(hex64)") == "v=%\(hex64.prefix(16))[REDACTED]")
    }

    @Test("JSON-escaped keys inside a string, once and twice")
    func jsonEscaped() {
        #expect(
            redactor.redact(#"msg="{\"password\":\"p\\\"q\",\"user\":\"bob\"}""#)
                == #"msg="{\"password\":\"[REDACTED]\",\"user\":\"bob\"}""#)
        #expect(
            redactor.redact(#"{\\\"client_secret\\\":\\\"abc def\\\"}"#)
                == #"{\\\"client_secret\\\":\\\"[REDACTED]\\\"}"#)
        #expect(
            redactor.redact(#"{"refresh-token": "r1.r2.r3", "n": 1}"#) == #"{"refresh-token": "[REDACTED]", "n": 1}"#)
    }

    @Test("key names in any case and spelling; names that only look alike stay")
    func keyNames() {
        for key in [
            "api_key", "APIKEY", "Api-Key", "apiKey", "x-api-key", "access_token", "RefreshToken", "token", "SECRET",
            "client_secret", "private_key", "privateKey", "session", "SESSION_ID", "JSESSIONID", "PHPSESSID",
            "cookie", "Set-Cookie", "passwd", "pwd", "pin", "auth", "aws_secret_access_key", "X-Amz-Signature",
            "sig", "mnemonic", "credentials",
        ] {
            #expect(Redactor.isSensitiveKey(key), "\(key)")
            #expect(redactor.redact("\(key)=abc123 next") == "\(key)=[REDACTED] next", "\(key)")
        }
        for key in ["key", "code", "domain", "session_count", "sessions", "duration", "category", "layer", "pinned"] {
            #expect(!Redactor.isSensitiveKey(key), "\(key)")
        }
    }

    @Test("PEM private key blocks: the whole body, with real, JSON-escaped or URL-encoded newlines")
    func pem() {
        let body = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj"
        let bodyTwo = "MIIEpAIBAAKCAQEAvRz3+Xz9k4/Hq8Tn0e1sKjW2Xq7YJv6gNw4mQa9sT0uHcBbE"
        #expect(
            redactor.redact("key -----BEGIN PRIVATE KEY-----\n\(body)\n\(bodyTwo)\n-----END PRIVATE KEY----- loaded")
                == "key -----BEGIN PRIVATE KEY-----[REDACTED]-----END PRIVATE KEY----- loaded")
        #expect(
            redactor.redact(
                #"{"pem":"-----BEGIN RSA PRIVATE KEY-----\n"# + body + #"\n-----END RSA PRIVATE KEY-----\n"}"#)
                == #"{"pem":"-----BEGIN RSA PRIVATE KEY-----[REDACTED]-----END RSA PRIVATE KEY-----\n"}"#)
        #expect(
            redactor.redact("k=-----BEGIN+EC+PRIVATE+KEY-----%0A\(bodyTwo)%0A-----END+EC+PRIVATE+KEY-----%0A")
                == "k=-----BEGIN+EC+PRIVATE+KEY-----[REDACTED]-----END+EC+PRIVATE+KEY-----%0A")
        #expect(
            redactor.redact("private_key=-----BEGIN OPENSSH PRIVATE KEY----- \(body) -----END OPENSSH PRIVATE KEY-----")
                == "private_key=-----BEGIN OPENSSH PRIVATE KEY-----[REDACTED]-----END OPENSSH PRIVATE KEY-----")
        // Cut off before its END line: everything after the header goes.
        #expect(
            redactor.redact("-----BEGIN PRIVATE KEY-----\n\(body) (truncated)")
                == "-----BEGIN PRIVATE KEY-----[REDACTED]")
        // Public material is not a secret.
        let certificate = "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----"
        #expect(redactor.redact(certificate) == certificate)
    }

    @Test("cloud access keys, Nostr keys and invoices in any case")
    func shapes() {
        #expect(redactor.redact("creds AKIAIOSFODNN7EXAMPLE ok") == "creds AKIA[REDACTED] ok")
        #expect(redactor.redact("sts ASIAY34FZKBOKMUTVV7A ok") == "sts ASIA[REDACTED] ok")
        #expect(
            redactor.redact("nsec1vl029mgpspedva04g90vltkh6fvh240zqtv9k0t9af8935ke9laqsnlfe5 x") == "nsec1[REDACTED] x")
        let upper = "NOSTR+WALLETCONNECT://\(hex64.uppercased())?RELAY=wss://r.example&SECRET=\(hex64)"
        #expect(redactor.redact("nwc \(upper) x") == "nwc NOSTR+WALLETCONNECT://[REDACTED] x")
        #expect(
            redactor.redact("pay \(invoice.uppercased()) x") == "pay \(invoice.uppercased().prefix(16))[REDACTED] x")
        let regtest = "lnbcrt500u1pn9xyzpp5" + String(repeating: "qz", count: 40)
        #expect(redactor.redact("pay \(regtest)") == "pay \(regtest.prefix(16))[REDACTED]")
    }

    @Test("ordinary text survives: words, codes, domains, durations")
    func noOverRedaction() {
        for text in [
            "wallet answered RATE_LIMITED after 2.5s", "code=nwc/RATE_LIMITED domain=nwc key=error.nwc.RATE_LIMITED",
            "telnyx/-32003 timeout=30s elapsed=812ms retry_after=1500ms duration: 1m30s",
            "token bucket refilled; secret santa; password reset requested", "Basic plan, bearer of bad news",
            "session_count=3 sessions=4", "100% done, 50%off, %zz", "https://api.example.com/v1/pay?amount=100",
            "BEGIN transaction; -----BEGIN PUBLIC KEY-----", "layer=client operation=pay attempt=2",
            "KEYBOARD AKIA ASIA nsec1 lnbc", "see user@localhost and @mention",
        ] {
            #expect(redactor.redact(text) == text)
        }
    }

    @Test("a redacted line redacted again is the same line (fuzzer findings)")
    func idempotent() {
        for text in [
            // Found by the fuzzer: the second pass took `Basic` for the value.
            "Authorization: Basic dXNlcjpwYXNz", "Authorization: Basic dXNlcjpw\u{01}\u{00}YXNz",
            "Authorization: Bearer abc", "authorization=basic x y",
            // The second pass went from `wss%3A%2F%2F` through the marker to the `@` of `lud16`.
            "x wss%3A%2F%2Frelay.example.com&secret=3f1c9a7b2e5d\u{01}?7f3a8c5b&lud16=a@b.c-----BEGIN#^ P",
            // A long "header" the first pass shortened by redacting a URL in it: still no header.
            "-----BEGIN OPENSSH PRIVATE s://alice\u{FF}B4cr3t@apiCharaple.com\u{FF}\u{FF}\u{FF}\u{FF}\u{FF}\u{FF}"
                + "\u{FF}\u{FF}\u{FF}\u{FF}\u{FF}\u{FF}\u{FF}\u{FF}\u{FF}\u{FF}\u{FF}\u{FF}\u{FF}\u{FF}\u{FF}cb=https%3l"
                + "\u{FF}e%3As3cr3t%40db.examChKEY-----\nb3BlbnNzaC1rZXktdjEAAAAA",
            // A bearer token that swallowed the `%2F` ending an encoded URL's authority.
            "=cbhttps%3A%2F%2Falice%3As3cr3t%40db\u{1E}.3A+Bearer+abcDEttps%6A%2F%2Falice%7exampl\u{FF}154%6322Bxyz"
                + "%7example.clice%3As3cr3t%40db\u{1E}.3A+Bearer+abcDEttps%3A%2F%2Falice%7exampl\u{FF}15om%2Fx",
            // A JWT-like scheme whose authority the first pass redacted: the second must see the same URL.
            "Ber eyJhbGciOiJSUzI1NiJ9.eyJzdt://32e5d48f0\u{00}\u{FF}8%40db.ex plcb",
            "bearer -----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----",
            // A URL-encoded PEM key whose END line is broken: the second pass read the marker as the key's body.
            "umail jane.doe+7a=nostr%2Bwalletconnect&3A%2F%2F3f1c9a7b0e5d48f0k=-----BEGIN+EC+PRIVATE+KEY-----%0AMIIE"
                + "pAIBAAKCAQEAvRz3%2BXz9\u{00}\u{00}\u{FFFD}\u{FFFD}F%0A-----END+llet@e.dampleEC+P",
            // A URL-encoded JSON password whose value holds the marker and a broken escape (`%2` then U+FFFD).
            "x}Cutfetc` Q$\u{0}\u{0}\u{0}\u{0}\u{0}SSRnzatif=%22Password%22%3A+%22[REDACTED]%2"
                + String(repeating: "\u{FFFD}", count: 49)
                + "2%3A+%22horizationjane%2Bwallet%40example.com&x=tsp%t3A%2F%tps%x",
        ] {
            let once = redactor.redact(text)
            let twice = redactor.redact(once)
            #expect(twice == once, "\(text.debugDescription) → \(once.debugDescription) → \(twice.debugDescription)")
        }
        #expect(redactor.redact("Authorization: Bearer abc") == "Authorization: Bearer [REDACTED]")
        // After a real space a `+` belongs to the token (the fuzzer's `Bearer ++++…` kept its pluses).
        #expect(redactor.redact("Authorization: Bearer +++abc/def== x") == "Authorization: Bearer [REDACTED] x")
        #expect(redactor.redact("sent bearer ++++++++++++ x") == "sent bearer [REDACTED] x")
        #expect(redactor.redact(" passwd=++++++++ ") == " passwd=[REDACTED] ")
        #expect(redactor.redact("h=Authorization%3A+Bearer+abc") == "h=Authorization%3A+Bearer+[REDACTED]")
        #expect(
            redactor.redact(
                "bearer -----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----")
                == "bearer -----BEGIN PRIVATE KEY-----[REDACTED]-----END PRIVATE KEY-----")
    }

    @Test("metadata: sensitive keys whole, other values scanned, recursively")
    func metadata() {
        let redacted = redactor.redact([
            "password": "plain", "Authorization": "anything",
            "nested": .dictionary(["list": .array(["ok", "mail bob@example.com"])]),
            "count": .stringConvertible(3),
        ])
        #expect(redacted["password"] == "[REDACTED]")
        #expect(redacted["Authorization"] == "[REDACTED]")
        #expect(redacted["nested"] == .dictionary(["list": .array(["ok", "mail [REDACTED]"])]))
        #expect(redacted["count"] == "3")
    }
}

extension String {
    /// The expected form of `invoice` in `self`: its first 16 characters, then the marker.
    fileprivate func replacingFirst16(of invoice: String) -> String {
        "pay \(invoice.prefix(16))[REDACTED] failed"
    }
}
