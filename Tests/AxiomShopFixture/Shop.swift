// The small shop the server adapters' tests answer for: one catalog, so that the HTTP, Vapor and gRPC tests hold
// their adapters to the same codes, statuses and texts.
import Axiom

/// The shop's catalog: a rate limit with a retry policy and its own status, a validation error with its own status,
/// a storage failure (a 5xx) whose texts name an internal host, and a sold-out article, each with English and
/// Turkish texts.
package let shop = BuiltinDomain(
    name: "shop",
    codes: [
        shopCode(
            "RATE_LIMITED", .network, 429, retry: RetryPolicy(maxAttempts: 3, backoff: .constant, delay: .seconds(30)),
            en: ("Slow down", "Too many requests. Try again later."),
            tr: ("Yavaşlayın", "Çok fazla istek. Daha sonra yeniden deneyin.")),
        shopCode(
            "INVALID_QUANTITY", .validation, 422, en: ("Check the quantity", "The quantity must be between 1 and 99."),
            tr: ("Miktarı kontrol edin", "Miktar 1 ile 99 arasında olmalı.")),
        shopCode(
            "LEDGER_DOWN", .storage, nil, en: ("Ledger down", "The ledger at \(ledgerHost) is down."),
            tr: ("Defter çalışmıyor", "\(ledgerHost) adresindeki defter çalışmıyor.")),
        shopCode(
            "SOLD_OUT", .state, nil, en: ("Sold out", "This article is sold out."), tr: ("Tükendi", "Bu ürün tükendi.")),
    ])

/// The internal host `LEDGER_DOWN`'s texts name, which a 5xx answer must never show.
public let ledgerHost = "db.internal:5432"

/// A code of the shop's catalog: a rate limit is recovered (retried), every other code handled.
func shopCode(
    _ name: String, _ category: ErrorCategory, _ status: Int?, retry: RetryPolicy? = nil,
    en: (title: String, detail: String), tr: (title: String, detail: String)
) -> CodeDefinition {
    CodeDefinition(
        "shop", name, category: category, severity: category == .storage ? .error : .warning,
        disposition: retry == nil ? .handle : .recover, retry: retry, httpStatus: status,
        texts: ["en": .init(title: en.title, message: en.detail), "tr": .init(title: tr.title, message: tr.detail)])
}

/// A registry with the shop's catalog.
public func shopRegistry() throws -> ErrorRegistry {
    let registry = ErrorRegistry()
    try registry.register(shop.catalog)
    return registry
}

/// An error no catalog registers, whose description holds a secret.
public struct DatabaseDown: Error, CustomStringConvertible {
    public var description: String { "connection to db failed: password=hunter2" }
    public init() {}
}
