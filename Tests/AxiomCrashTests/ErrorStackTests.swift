import Axiom
import AxiomCrash
import AxiomSymbolication
import Synchronization
import Testing

/// Errors of the stack tests: one severe enough to carry a stack, one not.
enum LedgerError: IdentifiableError {
    case corrupted, late

    static let domain = "ledger"

    var errorCode: ErrorCode {
        switch self {
        case .corrupted: ErrorCode(Self.domain, "CORRUPTED")
        case .late: ErrorCode(Self.domain, "LATE")
        }
    }

    static let catalog = ErrorCatalog(
        source: "test.ledger", domains: [domain],
        descriptors: [
            ErrorDescriptor(code: LedgerError.corrupted.errorCode, category: .storage, severity: .error),
            ErrorDescriptor(code: LedgerError.late.errorCode, category: .network, severity: .warning),
        ])

    static func registry() throws -> ErrorRegistry {
        let registry = ErrorRegistry()
        try registry.register(catalog)
        return registry
    }
}

/// Keeps every event an observer sees.
final class EventRecorder: ErrorObserver {
    private let events = Mutex<[(ErrorEvent, Disposition)]>([])

    func observe(_ event: ErrorEvent, disposition: Disposition) {
        events.withTrackedLock { $0.append((event, disposition)) }
    }

    var recorded: [(event: ErrorEvent, disposition: Disposition)] { events.withTrackedLock { $0 } }
}

@inline(never)
func writeLedger(_ error: LedgerError) throws(LedgerError) {
    throw error
}

@Suite("Stacks of severe errors")
struct ErrorStackTests {
    @Test func aSevereErrorHandledByDefaultCarriesTheStackWhereItEnteredThePipeline() throws {
        let recorder = EventRecorder()
        let pipeline = ErrorPipeline(
            layer: .application, escalatesTo: nil,
            configuration: PipelineConfiguration(
                registry: try LedgerError.registry(), observers: [recorder], stackCapturer: UnwindStackCapturer())
        ) {
            Handle()
        }
        do {
            try writeLedger(.corrupted)
        } catch {
            _ = try pipeline.decide(error, operation: "append")
        }
        do {
            try writeLedger(.late)
        } catch {
            _ = try pipeline.decide(error, operation: "append")
        }

        let records = recorder.recorded
        #expect(records.map(\.disposition) == [.handle, .handle])
        #expect(records.last?.event.stack == nil, "a warning carries no stack")
        let stack = try #require(records.first?.event.stack)
        #expect(stack.addresses.count > 2)

        let frames = stack.symbolicated(with: Symbolicator()).filter { !$0.isInlined }
        // The innermost frame is where the error entered the pipeline: `handle` itself in a debug build, or the
        // caller's call to it where a release build inlines `handle`. The capturer's own frames are skipped.
        let innermost = frames.first?.function ?? ""
        #expect(
            innermost.contains("ErrorPipeline") || innermost.contains("aSevereErrorHandledByDefaultCarriesTheStack"),
            "\(frames.map(\.summary))")
        #expect(!frames.contains { $0.function?.contains("StackCapture") == true })
        #expect(!frames.contains { $0.function?.contains("captureStackIfSevere") == true })
        // The function that handled it, with its file.
        let test = try #require(
            frames.first { $0.function?.contains("aSevereErrorHandledByDefaultCarriesTheStack") == true },
            "\(frames.map(\.summary))")
        #expect(test.file?.hasSuffix("Tests/AxiomCrashTests/ErrorStackTests.swift") == true)
        #expect(test.line != nil)
    }

    @Test func anErrorThrownInsideRunCarriesAStackThroughTheOperation() async throws {
        let recorder = EventRecorder()
        let pipeline = ErrorPipeline(
            layer: .application, escalatesTo: nil,
            configuration: PipelineConfiguration(
                registry: try LedgerError.registry(), observers: [recorder], stackCapturer: UnwindStackCapturer())
        ) {
            Handle()
        }
        let outcome = try await pipeline.run("append") { () async throws -> Int in
            try writeLedger(.corrupted)
            return 1
        }
        let event = try #require(outcome.event)
        #expect(outcome.disposition == .handle)
        let frames = try #require(event.stack).symbolicated(with: Symbolicator())
        #expect(frames.first { $0.function != nil }?.function?.contains("ErrorPipeline") == true)
    }

    @Test func aCapturerSkipsExactlyTheFramesItIsAskedTo() throws {
        let capturer = UnwindStackCapturer(maxFrames: 8)
        // Called straight from this test, not inside a macro's closure.
        let ownStack = capturer.captureStack(skippingFrames: 0)
        let callersStack = capturer.captureStack(skippingFrames: 1)
        let own = try #require(ownStack)
        let callers = try #require(callersStack)
        #expect(own.addresses.count == 8)
        // Same frames above this test; skipping 1 drops the one inside the capturer.
        #expect(Array(callers.addresses.dropFirst().prefix(6)) == Array(own.addresses.dropFirst(2)))
        let symbolicator = Symbolicator()
        let inside = CapturedStack(addresses: [own.addresses[0]]).symbolicated(with: symbolicator)
        #expect(inside.last?.function?.contains("UnwindStackCapturer.captureStack") == true)
        let caller = CapturedStack(addresses: [callers.addresses[0]]).symbolicated(with: symbolicator)
        #expect(caller.last?.function?.contains("aCapturerSkipsExactlyTheFramesItIsAskedTo") == true)
        #expect(capturer.captureStack(skippingFrames: 10_000) == nil)
    }
}
