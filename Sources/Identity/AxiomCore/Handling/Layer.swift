import Synchronization

/// A layer of the application that errors flow through: client → context → application.
public struct Layer: Hashable, Sendable, CustomStringConvertible {
    // Layers are interned: one immortal name object per distinct name, held unretained. A layer is then one
    // word that costs nothing to copy, which keeps every error event small and free of reference counting
    // for its layer. Applications have a handful of layers, so the interned names are a handful of objects.
    @usableFromInline
    final class Name: Sendable {
        let value: String
        /// The name's index in the flight recorder's table of names (`AXIOM_RECORDED_NAME_NONE` when the table is full).
        let recorded: UInt32
        init(_ value: String) {
            self.value = value
            self.recorded = FlightRecorder.nameIndex(value)
        }
    }

    private static let interned = Mutex<[String: Unmanaged<Name>]>([:])

    @usableFromInline
    let storage: Unmanaged<Name>

    /// The layer's name, used in logs and metrics.
    package var name: String { storage._withUnsafeGuaranteedRef { $0.value } }

    /// Creates (or finds) the layer with this name.
    public init(_ name: String) {
        storage = Self.interned.withTrackedLock { interned in
            if let known = interned[name] { return known }
            let made = Unmanaged.passRetained(Name(name))
            interned[name] = made
            return made
        }
    }

    public static func == (lhs: Layer, rhs: Layer) -> Bool { lhs.storage.toOpaque() == rhs.storage.toOpaque() }
    public func hash(into hasher: inout Hasher) { hasher.combine(storage.toOpaque()) }

    /// Actors that own state and talk to the outside world.
    public static let client = Layer("client")
    /// Coordinators that orchestrate clients for one use case.
    public static let context = Layer("context")
    /// The top: what the user sees. Its default handling is terminal.
    public static let application = Layer("application")

    public var description: String { name }
}
