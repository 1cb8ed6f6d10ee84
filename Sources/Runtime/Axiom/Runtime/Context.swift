/// A coordinator that orchestrates clients for one use case and owns what its user sees.
///
/// A context runs operations through its layer's handlers (``perform(_:_:)``). An error the handlers end here
/// (or escalate) becomes the context's ``errorState``, which the user can retry (``retryLastOperation()``) or
/// dismiss (``dismissError()``). Observers follow it through ``errorStates()``.
///
/// ```swift
/// actor PaymentContext: Context {
///     let wallet: WalletClient
///     let errorPipeline = ErrorPipeline(layer: .context, escalatesTo: .application) { FollowDescriptor() }
///     var errorStore = ErrorStateStore()
///     func pay(_ invoice: String) async throws(EscalatedError) {
///         _ = try await perform("pay") { try await self.wallet.pay(invoice) }
///     }
/// }
/// ```
public protocol Context: Actor {
    /// The context layer's handlers.
    associatedtype Handlers: ErrorHandler
    /// Decides the fate of errors of this context's operations.
    var errorPipeline: ErrorPipeline<Handlers> { get }
    /// The error the user sees, with its observers.
    var errorStore: ErrorStateStore { get set }
}

extension Context {
    /// The error shown now, if any.
    public var errorState: ErrorState? { errorStore.current }

    /// Whether ``retryLastOperation()`` is running.
    public var isRecovering: Bool { errorStore.isRecovering }

    /// The current error state, then every change, as long as the caller listens.
    public func errorStates() -> AsyncStream<ErrorState?> {
        errorStore.broadcaster.subscribe(startingWith: errorStore.current)
    }

    /// Runs an operation through the context's handlers; an error they do not resolve becomes the error state.
    ///
    /// - Returns: the value, or nil when the operation failed (ignored, or handled and now shown).
    /// - Throws: `EscalatedError` when the handlers escalate; the error state is set as well.
    public func perform<Value: Sendable>(
        _ name: String, _ operation: @escaping @Sendable () async throws -> Value
    ) async throws(EscalatedError) -> Value? {
        let pipeline = errorPipeline
        // The retry closure is made only when an error is shown: a successful call allocates nothing for it.
        func retry() -> @Sendable () async throws -> Void {
            {
                let outcome = try await pipeline.run(name) { try await operation() }
                if case .handled(let event) = outcome { throw event.error }
            }
        }
        do {
            let outcome = try await pipeline.run(name) { try await operation() }
            switch outcome {
            case .success(let value), .recovered(let value, _):
                return value
            case .ignored:
                return nil
            case .handled(let event):
                show(event.error, descriptor: event.descriptor, operation: name, retry: retry())
                return nil
            }
        } catch {
            show(error.error, descriptor: nil, operation: name, retry: retry())
            throw error
        }
    }

    /// Runs the failed operation again. Success clears the error state; failure replaces it with the new error.
    ///
    /// - Returns: whether the operation succeeded. False at once when there is nothing to retry.
    @discardableResult
    public func retryLastOperation() async -> Bool {
        guard let state = errorStore.current, let retry = state.retryOperation, !errorStore.isRecovering else {
            return false
        }
        errorStore.isRecovering = true
        defer { errorStore.isRecovering = false }
        do {
            try await retry()
            errorStore.set(nil)
            return true
        } catch {
            let shown = (error as? EscalatedError)?.error ?? error
            show(shown, descriptor: nil, operation: state.operation, retry: retry)
            return false
        }
    }

    /// Clears the error state without retrying.
    public func dismissError() {
        errorStore.set(nil)
    }

    /// Follows a client's state: `apply` runs on this context for the current state and every change.
    ///
    /// Returns once subscribed, so no change made after it is missed. The returned task ends when the client
    /// stops; cancel it to stop observing sooner.
    @discardableResult
    public func observe<C: Client>(
        _ client: C, _ apply: @escaping @Sendable (isolated Self, C.State) -> Void
    ) async -> Task<Void, Never> {
        let states = await client.states()
        return Task {
            for await state in states {
                apply(self, state)
            }
        }
    }

    private func show(
        _ error: any Error, descriptor: ErrorDescriptor?, operation: String,
        retry: @escaping @Sendable () async throws -> Void
    ) {
        let (identity, resolved) = errorPipeline.configuration.registry.resolve(error)
        let descriptor = descriptor ?? resolved
        errorStore.set(
            ErrorState(
                error: error, code: identity.code, timestamp: errorStore.clock.now(),
                requiresManualRecovery: descriptor.retry == nil, retryOperation: retry, operation: operation))
    }
}
