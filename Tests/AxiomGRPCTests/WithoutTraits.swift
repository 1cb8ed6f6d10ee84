#if !GRPC
import Testing

/// The gRPC tests need the product behind the GRPC trait (which brings HTTP and Tracing). Without it this suite says
/// so instead of passing by running nothing.
@Test(.disabled("needs the GRPC trait: swift test --traits GRPC"))
func grpcTestsNeedTheirTrait() {}
#endif
