#if HTTP
import Axiom

/// What a server sends for an error once its pipeline has decided it: a recovery's own response, or problem
/// details. ``ProblemResponder/answer(deciding:through:operation:acceptLanguage:instance:traceId:ownStatus:response:)``
/// gives it; a server adapter turns it into its framework's response.
///
/// Not generic over the framework's response: the adapters' code is not specialized for the application (it is
/// generic over the application's handlers, and its own module is compiled without them), and generic code asks the
/// runtime for the metadata of every generic type it makes, on each answer. A recovery's response is rare; it
/// travels as an existential, and the adapter casts it back to the type its own `response` closure gave.
package enum DecidedAnswer {
    /// A handler recovered with a value that the adapter's `response` closure turned into its framework's own
    /// response, which the server sends as it is.
    case response(Any)
    /// Problem details. `escalated` is the event of an error that went past the pipeline's last layer (the answer
    /// then details the translated error): the request has failed, whatever the status.
    case problem(ProblemAnswerParts, escalated: ErrorEvent?)
}

/// A pipeline an adapter decides through, held as an existential (``PipelineResponder/deciding``): the existential
/// carries the pipeline's type, so that a call from code not specialized for the application's handlers does not
/// ask the runtime for `ErrorPipeline<Handlers>`'s metadata on each answer, as a call on the generic pipeline does.
package protocol AnswerDeciding: Sendable {
    /// `decide(error, operation: operation)`: the pipeline's decision of an error a request's handler threw.
    func decide(caught error: consuming any Error, operation: String) throws(EscalatedError) -> Outcome<any Sendable>
}

extension ErrorPipeline: AnswerDeciding {
    package func decide(
        caught error: consuming any Error, operation: String
    ) throws(EscalatedError) -> Outcome<any Sendable> {
        try decide(error, operation: operation)
    }
}

extension ProblemResponder {
    /// Decides `error` through `pipeline` and gives what a server sends for it: every server adapter's one path
    /// from a thrown error to an answer.
    ///
    /// ```
    ///   error ──▶ pipeline.decide ──▶ handled ─────────────────▶ problem details (status from the descriptor)
    ///                            ├─▶ ignored ─────────────────▶ problem details, the same; the pipeline's
    ///                            │                              observers did not count it as a failure
    ///                            ├─▶ recovered, response(value) gives one ──▶ that response
    ///                            ├─▶ recovered with another value ──▶ problem details
    ///                            └─▶ escalated (no layer above) ──▶ problem details of the translated error
    /// ```
    ///
    /// A request cannot be run again once its body may have been read, so the pipeline decides outside `run`: a
    /// retry decision counts as a pass, and the next handler decides. The responder's registry should be the
    /// pipeline's.
    ///
    /// - Parameters:
    ///   - error: the error the request's handler threw.
    ///   - pipeline: the pipeline that decides it, with no layer above it.
    ///   - operation: the request's name in the pipeline's events (`GET /orders/{id}`).
    ///   - acceptLanguage: the request's `Accept-Language`, for the answer's texts.
    ///   - instance: the answer's `instance` member: the request's path.
    ///   - traceId: the request's trace id, for the answer's `traceId` member.
    ///   - ownStatus: the status of a server framework's own error (a 404 of its router), used when no catalog
    ///     registers the error.
    ///   - response: the framework's response for a recovery's value, nil when the value is not one.
    package func answer(
        deciding error: any Error, through pipeline: any AnswerDeciding, operation: String,
        acceptLanguage: String?, instance: String, traceId: String?, ownStatus: @autoclosure () -> Int?,
        response: (any Sendable) -> Any?
    ) -> DecidedAnswer {
        // The decided event's identity and descriptor: the error is not resolved a second time.
        let identity: ErrorIdentity
        let descriptor: ErrorDescriptor
        do {
            switch try pipeline.decide(caught: error, operation: operation) {
            case .recovered(let value, let event):
                if let response = response(value) { return .response(response) }
                (identity, descriptor) = (event.identity, event.descriptor)
            case .ignored(let event), .handled(let event):
                (identity, descriptor) = (event.identity, event.descriptor)
            case .success(let value):
                // `decide` starts from an error and never returns a success; were it to, it is a value as above.
                if let response = response(value) { return .response(response) }
                (identity, descriptor) = registry.resolve(error)
            }
        } catch let escalated {
            // No layer above this one: the translated error is the answer, and the request has failed.
            let (identity, descriptor) = registry.resolve(escalated.error)
            let problem = parts(
                identity: identity, descriptor: descriptor, acceptLanguage: acceptLanguage, instance: instance,
                traceId: traceId, ownStatus: nil)
            return .problem(problem, escalated: escalated.event)
        }
        let problem = parts(
            identity: identity, descriptor: descriptor, acceptLanguage: acceptLanguage, instance: instance,
            traceId: traceId, ownStatus: ownStatus())
        return .problem(problem, escalated: nil)
    }
}

/// What a server adapter answers with: the pipeline every error is decided through, and a responder over the
/// pipeline's registry, made once with the adapter (it keeps the texts of the answers it gave). A class: an adapter
/// (a middleware the server framework copies, a generic one whose code is not specialized for the application's
/// pipeline) reads the pipeline in place through one reference, where a copy of a pipeline of unknown type would
/// go through its value witnesses for each answer.
package final class PipelineResponder<Handlers: ErrorHandler>: Sendable {
    /// The pipeline every error is decided through, held once, as the existential the answers decide through.
    let deciding: any AnswerDeciding
    /// The responder every answer is given by; its registry is the pipeline's.
    package let responder: ProblemResponder

    /// The pipeline every error is decided through (read by the adapters' `pipeline` properties, not per answer).
    package var pipeline: ErrorPipeline<Handlers> {
        // `init` stores nothing else there.
        deciding as! ErrorPipeline<Handlers>
    }

    /// A responder deciding through `pipeline`, with the type URIs and statuses of `configuration`.
    package init(pipeline: ErrorPipeline<Handlers>, configuration: ProblemDetailsConfiguration) {
        deciding = pipeline
        responder = ProblemResponder(registry: pipeline.configuration.registry, configuration: configuration)
    }

    /// ``ProblemResponder/answer(deciding:through:operation:acceptLanguage:instance:traceId:ownStatus:response:)``
    /// through this pipeline.
    package func answer(
        deciding error: any Error, operation: String, acceptLanguage: String?, instance: String, traceId: String?,
        ownStatus: @autoclosure () -> Int?, response: (any Sendable) -> Any?
    ) -> DecidedAnswer {
        responder.answer(
            deciding: error, through: deciding, operation: operation, acceptLanguage: acceptLanguage,
            instance: instance, traceId: traceId, ownStatus: ownStatus(), response: response)
    }
}
#endif
