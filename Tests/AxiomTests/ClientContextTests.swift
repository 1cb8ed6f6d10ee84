import Axiom
import AxiomTesting
import Testing

struct WalletState: Sendable, Equatable {
    var balance = 0
    var connected = false
}

actor WalletClient: Client {
    var store = ClientStore(WalletState())
    private(set) var initialized = false

    func validate(_ state: WalletState) throws {
        guard state.balance >= 0 else { throw ClientError.invalidState }
    }

    func initialize() async throws { initialized = true }
}

actor PaymentContext: Context {
    let wallet: WalletClient
    let errorPipeline: ErrorPipeline<FollowDescriptor>
    var errorStore: ErrorStateStore
    var observedBalances: [Int] = []

    init(wallet: WalletClient, registry: ErrorRegistry, clock: ManualClock) {
        self.wallet = wallet
        self.errorPipeline = ErrorPipeline(
            layer: .context, escalatesTo: nil,
            configuration: PipelineConfiguration(registry: registry, observers: [], clock: clock)
        ) { FollowDescriptor() }
        self.errorStore = ErrorStateStore(clock: clock)
    }

    func record(_ state: WalletState) { observedBalances.append(state.balance) }
}

@Suite("Clients and contexts")
struct ClientContextTests {
    @Test("a client validates updates, keeps the old state when one is refused, and publishes the new ones")
    func clientUpdates() async throws {
        let wallet = WalletClient()
        try await wallet.start()
        #expect(await wallet.initialized)
        #expect(await wallet.lifecycle == .running)
        var states = await wallet.states().makeAsyncIterator()
        #expect(await states.next() == WalletState())

        try await wallet.update { $0.balance = 10 }
        #expect(await states.next()?.balance == 10)
        await #expect(throws: ClientError.self) { try await wallet.update { $0.balance = -5 } }
        #expect(await wallet.snapshot.balance == 10)

        await wallet.stop()
        #expect(await states.next() == nil, "observers' streams end when the client stops")
        await #expect(throws: ClientError.self) { try await wallet.update { $0.balance = 1 } }
    }

    @Test("a context observes a client without any UI framework")
    func contextObservesClient() async throws {
        let clock = ManualClock()
        let wallet = WalletClient()
        let context = PaymentContext(wallet: wallet, registry: try nwcRegistry(), clock: clock)
        let observation = await context.observe(wallet) { context, state in context.record(state) }
        try await wallet.update { $0.balance = 5 }
        await wallet.stop()
        await observation.value
        #expect(await context.observedBalances == [0, 5])
    }

    @Test("a failed operation becomes the error state; retry-last-operation clears it when it succeeds")
    func retryLastOperationClears() async throws {
        let clock = ManualClock()
        let context = PaymentContext(wallet: WalletClient(), registry: try nwcRegistry(), clock: clock)
        let succeed = Flag(false)
        let calls = CallCounter()
        let errorStates = await context.errorStates()
        clock.advance(by: .seconds(12))

        let value = try await context.perform("pay") { () async throws -> String in
            calls.next()
            guard succeed.isOn else { throw nwc("UNAUTHORIZED") }
            return "paid"
        }
        #expect(value == nil)
        let state = try #require(await context.errorState)
        #expect(state.code == ErrorCode("nwc", "UNAUTHORIZED"))
        #expect(state.timestamp == .seconds(12))
        #expect(state.requiresManualRecovery, "UNAUTHORIZED is never retried: the user must reconnect")
        #expect(state.operation == "pay")

        #expect(await context.retryLastOperation() == false)
        #expect(await context.errorState?.code == ErrorCode("nwc", "UNAUTHORIZED"))

        succeed.set(true)
        #expect(await context.retryLastOperation())
        #expect(await context.errorState == nil)
        #expect(calls.count == 3)

        var codes: [ErrorCode?] = []
        for await state in errorStates {
            codes.append(state?.code)
            if codes.count == 4 { break }
        }
        #expect(
            codes == [nil, ErrorCode("nwc", "UNAUTHORIZED"), ErrorCode("nwc", "UNAUTHORIZED"), nil])
    }

    @Test("dismiss clears the error state without running anything")
    func dismiss() async throws {
        let context = PaymentContext(wallet: WalletClient(), registry: try nwcRegistry(), clock: ManualClock())
        let calls = CallCounter()
        _ = try await context.perform("pay") { () async throws -> Int in
            calls.next()
            throw nwc("INSUFFICIENT_BALANCE")
        }
        #expect(await context.errorState != nil)
        await context.dismissError()
        #expect(await context.errorState == nil)
        #expect(await context.retryLastOperation() == false)
        #expect(calls.count == 1)
    }
}
