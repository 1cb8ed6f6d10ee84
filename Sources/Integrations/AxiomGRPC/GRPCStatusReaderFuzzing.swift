#if GRPC
/// What the fuzz target of the status reader (`Tests/Fuzz/GRPCStatusReader`) reaches besides the public API: not part
/// of the API. The names it gives are promised as the documentation states them, not as Swift declarations.
@_spi(Fuzzing) public enum GRPCStatusReaderFuzzing {
    /// The trailer that carries serialized `google.rpc.Status` details: `grpc-status-details-bin`.
    @_spi(Fuzzing) public static var detailsKey: String { GRPCStatusReader.detailsKey }

    /// The AIP-193 `ErrorInfo` reason of `code`: `outOfStock` is `OUT_OF_STOCK`.
    @_spi(Fuzzing) public static func reason(for code: String) -> String { GRPCStatusReader.reason(for: code) }
}
#endif
