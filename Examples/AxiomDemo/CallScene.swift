import Axiom
import Synchronization

/// Calls through the runtime's middleware: a circuit breaker in front of a signalling server that fails,
/// then gateway registration that gives up after three tries.
struct CallScene {
    let configuration: PipelineConfiguration
    let clock: FastForwardClock

    func run() async {
        Transcript.section("Calls (circuit breaker and reconnection in the middleware chain)")
        guard configuration.registry.source(ofDomain: "telnyx") != nil else {
            Transcript.line("skipped: the telnyx plugin is not loaded")
            return
        }
        let breaker: CircuitBreaker
        do {
            breaker = try CircuitBreaker(
                key: "telnyx.signalling",
                configuration: .init(mode: .consecutiveFailures(threshold: 5), openDuration: .seconds(60)),
                clock: clock)
        } catch {
            Transcript.line("skipped: \(error)")
            return
        }
        let runner = OperationRunner(
            chain: OperationChain {
                CircuitBreakerStage(breaker)
            },
            pipeline: ErrorPipeline(layer: .application, escalatesTo: nil, configuration: configuration) {
                Handle()
            })

        // The socket to the signalling server is down for the next five calls that reach it.
        let socketDownFor = Mutex(5)
        let invite: @Sendable () async throws -> String = {
            let down = socketDownFor.withLock { remaining in
                defer { remaining = max(remaining - 1, 0) }
                return remaining > 0
            }
            if down { throw DomainError(domain: "telnyx", code: "SOCKET_NOT_CONNECTED", message: "socket closed") }
            return "ringing"
        }
        for call in 1...7 {
            let outcome = try? await runner.run("invite") { try await invite() }
            let result: String
            switch outcome {
            case .success(let value)?: result = value
            case .handled(let event)?: result = "\(event.code.code)"
            default: result = "?"
            }
            Transcript.line("call \(call): \(result); breaker \(breaker.state)")
        }
        clock.advance(by: .seconds(60))
        let probe = try? await runner.run("invite") { try await invite() }
        Transcript.line("60 s later, one probe: \(probe?.value ?? "failed"); breaker \(breaker.state)")

        Transcript.line("— gateway registration, 3 tries 3 s apart:")
        let started = clock.elapsed
        do {
            // The Telnyx plugin's code: registration is tried 3 times, 3 s apart (the WebRTC SDK's rule).
            let registration = ReconnectionPolicy.failing(with: ErrorCode("telnyx", "GATEWAY_NOT_REGISTERED"))
            _ = try await registration.run(
                clock: clock,
                onState: { state in Transcript.line("   \(state)") },
                { _ in throw DomainError(domain: "telnyx", numericCode: -32003, message: "registration timed out") })
        } catch {
            let event = ErrorEvent(error: error, layer: .application, operation: "register")
            Transcript.line("   gave up with \(event.code) after \(clock.elapsed - started) of waiting")
            Presenter.show(event)
        }
    }
}
