/// A resource an operation needs: network, storage, memory headroom, a wallet connection.
///
/// ``validate()`` checks it for real and throws when it is not there: a `CapabilityError` naming the unmet
/// requirement is best; any other error is wrapped in `CapabilityError.executionFailed`. Validation should be
/// quick and honour cancellation; the ``CapabilityValidator`` adds caching, a timeout and fallbacks.
public protocol Capability: Sendable {
    /// The name operations require it by (`network`, `storage`, `wallet`).
    var name: String { get }
    /// Checks the capability; returns when it is available.
    func validate() async throws
}

/// A capability checked by a closure: the way to add an application's own, such as a wallet connection.
///
/// ```swift
/// let wallet = CustomCapability("wallet") {
///     guard await walletManager.isConnected else {
///         throw CapabilityError.requirementNotMet(.init(capability: "wallet", detail: "a connected wallet"))
///     }
/// }
/// ```
public struct CustomCapability: Capability {
    public let name: String
    private let check: @Sendable () async throws -> Void

    /// Creates a capability named `name`, checked by `check`.
    public init(_ name: String, check: @escaping @Sendable () async throws -> Void) {
        self.name = name
        self.check = check
    }

    public func validate() async throws { try await check() }
}

/// Whether a capability is available, as the validator last found it.
public enum CapabilityStatus: Sendable, CustomStringConvertible {
    /// Available through the capability named `via`: the capability itself or one of its fallbacks.
    case available(via: String)
    /// Unavailable for this reason.
    case unavailable(CapabilityError)

    /// Whether it is available.
    public var isAvailable: Bool {
        if case .available = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .available(let via): "available via \(via)"
        case .unavailable(let error): "unavailable: \(error.errorDescription ?? "\(error)")"
        }
    }
}
