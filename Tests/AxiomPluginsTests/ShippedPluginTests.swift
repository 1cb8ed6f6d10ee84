import Axiom
import Foundation
import Testing

@testable import AxiomPlugins

/// The plugins SwiftPM builds beside the test binary, loaded as `axiom` loads them.
@Suite(.disabled(if: Sanitizers.thread, swiftPluginsUnderThreadSanitizer))
struct ShippedPluginTests {
    let registry = ErrorRegistry()
    let report: PluginLoadReport

    init() {
        report = PluginHost(registry: registry).load(
            PluginSearch(executableDirectory: FixtureDirectory.buildDirectory))
    }

    @Test func allFiveLoad() {
        #expect(report.rejected.isEmpty, "\(report.rejected)")
        #expect(
            Set(report.loaded.map(\.id)) == [
                "dev.axiom.plugins.nwc", "dev.axiom.plugins.telnyx", "dev.axiom.plugins.rendio",
                "dev.axiom.plugins.payment-methods", "dev.axiom.plugins.linux-io",
            ])
    }

    @Test func nwcFollowsTheRecoveryTable() throws {
        let rateLimited = try #require(registry.descriptor(for: ErrorCode("nwc", "RATE_LIMITED")))
        #expect(rateLimited.disposition == .recover)
        #expect(rateLimited.retry?.delay == .seconds(60))
        #expect(rateLimited.source == "dev.axiom.plugins.nwc")

        let balance = try #require(registry.descriptor(for: ErrorCode("nwc", "INSUFFICIENT_BALANCE")))
        #expect(balance.category == .credit)
        #expect(balance.presentation?.style == .modal)
        #expect(balance.retry == nil)
        let recovery = try #require(balance.recoverySuggestionKey)
        #expect(registry.message(forKey: recovery, locale: "en") == "Add Funds")
        #expect(registry.message(forKey: recovery, locale: "tr") == "Bakiye Ekle")

        let unauthorized = try #require(registry.descriptor(for: ErrorCode("nwc", "UNAUTHORIZED")))
        #expect(unauthorized.disposition == .escalate)
        #expect(unauthorized.retry == nil)
        let escalation = try #require(unauthorized.escalation)
        #expect(registry.descriptor(for: escalation) != nil)
        #expect(registry.descriptor(for: ErrorCode("nwc", "NOT_IMPLEMENTED"))?.retry == nil)
        #expect(registry.descriptors.filter { $0.code.domain == "nwc" }.count == 10)
    }

    @Test func telnyxResolvesSignallingCodesAndCauses() throws {
        let timeout = try #require(registry.descriptor(for: ErrorCode("telnyx", "-32003")))
        #expect(timeout.code.code == "GATEWAY_REGISTRATION_TIMEOUT")
        for number in -32004 ... -32000 {
            #expect(registry.descriptor(domain: "telnyx", numericCode: number) != nil)
        }
        #expect(registry.descriptor(domain: "telnyx", numericCode: 21)?.code.code == "CALL_REJECTED")
        #expect(registry.descriptor(domain: "telnyx", numericCode: 486)?.code.code == "USER_BUSY")
        #expect(registry.descriptor(for: ErrorCode("telnyx", "NORMAL_CLEARING"))?.disposition == .ignore)
    }

    @Test func rendioUsesTheAppKeys() throws {
        let keys = try #require(
            ["emptyPrompt", "networkTimeout", "apiFailed", "insufficientCredits", "invalidDevice", "unknown"].map {
                registry.descriptor(for: ErrorCode("rendio", $0))?.messageKey
            } as [String?])
        #expect(
            keys == [
                "error.validation.empty_prompt", "error.network.timeout", "error.api.failed",
                "error.credit.insufficient", "error.auth.device_invalid", "error.general.unexpected",
            ])
    }

    @Test func paymentMethodsIgnoresWalletFailuresWhileListing() {
        for code in ["noWalletFound", "banned", "inReview", "serviceNotAvailable"] {
            #expect(registry.descriptor(for: ErrorCode("payment-methods", code))?.disposition == .ignore)
        }
        #expect(
            registry.descriptor(for: ErrorCode("payment-methods", "noPaymentMethodsFound"))?.disposition == .handle)
    }

    @Test func everyReferencedKeyHasEnglishAndTurkishText() {
        let plugins = Set(report.loaded.map(\.id))
        for descriptor in registry.descriptors where plugins.contains(descriptor.source) {
            var keys = [descriptor.messageKey, descriptor.messageKey + ".title"]
            if let recovery = descriptor.recoverySuggestionKey { keys.append(recovery) }
            for key in keys {
                for locale in ["en", "tr"] {
                    #expect(
                        registry.message(forKey: key, locale: locale) != nil, "\(descriptor.code): \(locale) \(key)")
                }
            }
        }
    }
}
