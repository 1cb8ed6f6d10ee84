/// Passes a limiter, for the limiter stages: runs `acquire`, and counts a refusal (a `Refusal`) as a `rejection`
/// event of `stage`, outcome the refusal's code, before throwing it on; any other failure (a cancelled wait) is
/// thrown on uncounted.
@inlinable @inline(__always)
nonisolated(nonsending) func admit<Refusal: IdentifiableError>(
    refusing _: Refusal.Type, stage: String, operation: String, telemetry: ResilienceTelemetry?,
    _ acquire: nonisolated(nonsending) () async throws -> Void
) async throws {
    do {
        try await acquire()
    } catch let refusal as Refusal {
        telemetry?.event("rejection", stage: stage, operation: operation, outcome: "\(refusal.errorCode)")
        throw refusal
    }
}
