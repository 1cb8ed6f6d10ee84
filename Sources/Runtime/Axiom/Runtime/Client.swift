/// Where a client is in its life.
public enum ClientLifecycle: Sendable, Hashable {
    /// Created; ``Client/start()`` not called yet.
    case created
    /// Started and serving.
    case running
    /// Stopped; updates are refused and observers' streams have ended.
    case stopped
}

/// A client's state and its observers, kept inside the client actor.
///
/// Declare one as a stored property (`var store = ClientStore(WalletState())`); the ``Client`` extension does
/// the rest.
public struct ClientStore<State: Sendable>: Sendable {
    /// The current state.
    package internal(set) var state: State
    /// Where the client is in its life.
    package internal(set) var lifecycle: ClientLifecycle = .created
    let broadcaster = Broadcaster<State>()

    /// Creates a store holding `initial`.
    public init(_ initial: State) { self.state = initial }
}

/// An actor that owns a `Sendable` state and talks to the outside world (a wallet, a signalling server).
///
/// Other code sees snapshots (``snapshot``) and changes (``states()``), never the state itself; changes go
/// through ``update(_:)``, which validates the new state before anyone sees it. Contexts observe clients
/// through the state stream; no UI framework is involved.
///
/// ```swift
/// actor WalletClient: Client {
///     var store = ClientStore(WalletState())
///     func validate(_ state: WalletState) throws { guard state.balance >= 0 else { throw ClientError.invalidState } }
/// }
/// ```
public protocol Client<State>: Actor {
    /// The state the client owns.
    associatedtype State: Sendable
    /// Storage for the state, its lifecycle and observers.
    var store: ClientStore<State> { get set }
    /// Throws when `state` breaks the client's rules; ``update(_:)`` then keeps the old state.
    func validate(_ state: State) throws
    /// Prepares the client (open connections, load data). Called by ``start()``.
    func initialize() async throws
    /// Releases what the client holds. Called by ``stop()``.
    func shutdown() async
}

extension Client {
    /// Every state is valid by default.
    public func validate(_ state: State) throws {}
    /// Nothing to prepare by default.
    public func initialize() async throws {}
    /// Nothing to release by default.
    public func shutdown() async {}

    /// A copy of the current state.
    public var snapshot: State { store.state }

    /// Where the client is in its life.
    public var lifecycle: ClientLifecycle { store.lifecycle }

    /// Changes the state: `body` edits a copy, ``validate(_:)`` checks it, and only then it replaces the state
    /// and reaches observers.
    ///
    /// - Throws: `ClientError.invalidState` after ``stop()``; `ClientError.updateFailed` when `body` or
    ///   validation throws (the state is unchanged).
    @discardableResult
    public func update<R: Sendable>(_ body: @Sendable (inout State) throws -> R) throws(ClientError) -> R {
        guard store.lifecycle != .stopped else { throw ClientError.invalidState }
        var next = store.state
        let result: R
        do {
            result = try body(&next)
            try validate(next)
        } catch let error as ClientError {
            throw error
        } catch {
            throw ClientError.updateFailed(underlying: error)
        }
        store.state = next
        store.broadcaster.publish(next)
        return result
    }

    /// The current state, then every later one, until the client stops.
    public func states() -> AsyncStream<State> {
        store.broadcaster.subscribe(startingWith: store.state)
    }

    /// Initializes the client and marks it running. Calling it again does nothing.
    public func start() async throws {
        guard store.lifecycle == .created else { return }
        try await initialize()
        store.lifecycle = .running
    }

    /// Shuts the client down, ends observers' streams, and refuses further updates.
    public func stop() async {
        guard store.lifecycle != .stopped else { return }
        store.lifecycle = .stopped
        await shutdown()
        store.broadcaster.finish()
    }
}
