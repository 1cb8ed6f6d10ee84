/// A limiter's refusal, counted for the limiter stages: a `rejection` event of `stage` for `operation`, outcome the
/// refusal's code. Gives the refusal back, for the stage to throw. Only a refusal comes here, so a call the limiter
/// lets through does no more than it did.
@inlinable
func counted<Refusal: IdentifiableError>(
    _ refusal: Refusal, stage: String, operation: String, telemetry: ResilienceTelemetry?
) -> Refusal {
    telemetry?.event("rejection", stage: stage, operation: operation, outcome: "\(refusal.errorCode)")
    return refusal
}
