import AxiomCatalog
import CAxiomFlightRecorder

/// The last decided errors of the process, kept where a crash handler can read them.
///
/// Every pipeline writes the end of each error episode (code, disposition, layer, operation, attempt, wall-clock
/// time) into a ring of fixed slots in C memory, without a lock or an allocation (the code's and the layer's names as
/// indexes into a table of names the recorder keeps, found once per code and per layer): the deciding thread's own ring,
/// written with no atomic read-modify-write (16 threads own one at a time; threads beyond them share one more).
/// The crash reporter (`AxiomCrash`) copies the newest 32 of all rings into its report, so a crash report shows
/// the errors that led up to it.
package enum FlightRecorder {
    /// How many decided errors a report keeps (the newest of all threads).
    package static let capacity = Int(AXIOM_RECENT_ERROR_CAPACITY)

    /// How many errors the process's pipelines have decided so far (the ring keeps the last ``capacity``).
    package static var recordedCount: UInt64 { axiom_flight_recorder_error_count() }

    /// One decided error, as the ring keeps it (strings cut at 64, 24 and 56 bytes).
    package struct Entry: Sendable, Hashable {
        /// `domain/code`.
        package var code: String
        /// The fate the layer carried out.
        package var disposition: Disposition
        /// The layer that decided.
        package var layer: String
        package var operation: String
        /// Which attempt failed last, from 1.
        package var attempt: Int
        /// Wall-clock time the episode ended: seconds and nanoseconds since 1970.
        package var seconds: Int64
        package var nanoseconds: Int64
    }

    /// `name`'s index in the recorder's table of names, which keeps each name once (cut at 64 bytes) in memory the
    /// crash handler reads; `AXIOM_RECORDED_NAME_NONE` once the table is full.
    package static func nameIndex(_ name: String) -> UInt32 {
        var name = name
        return name.withUTF8 { axiom_flight_recorder_name($0.baseAddress, $0.count) }
    }

    /// The errors the ring holds now, oldest first (at most ``capacity``). A slot being written at that moment
    /// is left out.
    package static func recentErrors() -> [Entry] {
        var raw = [axiom_recent_error](repeating: axiom_recent_error(), count: capacity)
        let count = raw.withUnsafeMutableBufferPointer { axiom_flight_recorder_copy_errors($0.baseAddress, $0.count) }
        return raw.prefix(count).map { error in
            var error = error
            func text<T>(_ field: inout T, _ length: UInt8) -> String {
                withUnsafeBytes(of: &field) { String(decoding: $0.prefix(Int(length)), as: UTF8.self) }
            }
            let disposition: Disposition
            switch Int(error.resolution) {
            case AXIOM_RECENT_ERROR_IGNORED: disposition = .ignore
            case AXIOM_RECENT_ERROR_RECOVERED: disposition = .recover
            case AXIOM_RECENT_ERROR_ESCALATED: disposition = .escalate
            default: disposition = .handle
            }
            return Entry(
                code: text(&error.code, error.code_length), disposition: disposition,
                layer: text(&error.layer, error.layer_length),
                operation: text(&error.operation, error.operation_length),
                attempt: Int(error.attempt), seconds: error.seconds, nanoseconds: error.nanoseconds)
        }
    }

    /// Writes one decided error into the ring.
    @usableFromInline
    static func record(_ event: borrowing ErrorEvent, _ disposition: Disposition, layer: Layer) {
        let descriptor = event.descriptorReference
        let attempt = UInt32(clamping: event.attempt)
        let code: UInt8
        switch disposition {
        case .ignore: code = UInt8(AXIOM_RECENT_ERROR_IGNORED)
        case .recover: code = UInt8(AXIOM_RECENT_ERROR_RECOVERED)
        case .escalate: code = UInt8(AXIOM_RECENT_ERROR_ESCALATED)
        case .handle: code = UInt8(AXIOM_RECENT_ERROR_HANDLED)
        }
        // The code's and the layer's names are indexes into the recorder's table of names, found once: only the
        // operation's bytes are copied here.
        let name = descriptor._withUnsafeGuaranteedRef { $0.recordedName }
        let layerName = layer.storage._withUnsafeGuaranteedRef { $0.recorded }
        withBytes(event.operation) { operation in
            axiom_flight_recorder_record(name, layerName, operation.baseAddress, operation.count, attempt, code)
        }
    }
}

@inline(__always)
private func withBytes<R>(_ string: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    if let result = string.utf8.withContiguousStorageIfAvailable(body) { return result }
    var copy = string
    return copy.withUTF8(body)
}

extension FlightRecorder {
    /// Runs `operation` with its task announced as working for the trace `traceID` (16 bytes) and span `spanID`
    /// (8 bytes), so that a crash while it runs (on whichever thread runs the task then) writes the trace into
    /// the crash report, and the report can be joined to the trace in a collector.
    ///
    /// The announcement is the task's own: a child task (`async let`, a task group, `Task {}`) runs under no
    /// announcement unless it makes its own. Nested announcements in one task: the innermost wins. Costs a
    /// scan for a free slot (starting where the task's address points), a few atomic operations and a copy of
    /// 24 bytes; nothing is allocated. When all 256 slots are taken, the task runs unannounced. Ids of the wrong length announce nothing.
    /// `AxiomTracing`'s `CrashTrace` (which every server adapter runs each request in) announces the active span's
    /// ids through the variant of this function that takes them as words.
    nonisolated(nonsending) package static func withActiveTrace<Value>(
        traceID: some Collection<UInt8>, spanID: some Collection<UInt8>,
        _ operation: nonisolated(nonsending) () async throws -> Value
    ) async rethrows -> Value {
        guard traceID.count == 16, spanID.count == 8 else { return try await operation() }
        // The bytes from `start` on as a big-endian word.
        func word(_ bytes: some Collection<UInt8>, from start: Int) -> UInt64 {
            bytes.dropFirst(start).prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
        }
        return try await withActiveTrace(
            traceID: (word(traceID, from: 0), word(traceID, from: 8)), spanID: word(spanID, from: 0), operation)
    }

    /// Runs `operation` with its task announced as working for a trace, as
    /// ``withActiveTrace(traceID:spanID:_:)``: the trace id's 16 bytes and the span id's 8 as big-endian words.
    nonisolated(nonsending) package static func withActiveTrace<Value>(
        traceID: (UInt64, UInt64), spanID: UInt64,
        _ operation: nonisolated(nonsending) () async throws -> Value
    ) async rethrows -> Value {
        var trace = axiom_active_trace()
        withUnsafeMutableBytes(of: &trace.trace_id) { bytes in
            bytes.storeBytes(of: traceID.0.bigEndian, toByteOffset: 0, as: UInt64.self)
            bytes.storeBytes(of: traceID.1.bigEndian, toByteOffset: 8, as: UInt64.self)
        }
        withUnsafeMutableBytes(of: &trace.span_id) { $0.storeBytes(of: spanID.bigEndian, as: UInt64.self) }
        let slot = axiom_flight_recorder_enter_trace(&trace)
        defer { axiom_flight_recorder_leave_trace(slot) }
        return try await operation()
    }

    /// The trace announced by the task running on this thread now (``withActiveTrace(traceID:spanID:_:)``), as
    /// the crash handler would read it: 16 bytes of trace id and 8 of span id.
    package static func currentTrace() -> (traceID: [UInt8], spanID: [UInt8])? {
        var trace = axiom_active_trace()
        guard axiom_flight_recorder_current_trace(&trace) != 0 else { return nil }
        return (withUnsafeBytes(of: trace.trace_id) { Array($0) }, withUnsafeBytes(of: trace.span_id) { Array($0) })
    }
}
