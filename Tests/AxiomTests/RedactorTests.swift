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
