#if !Vapor
import Testing

/// The Vapor adapter's tests need the products behind the Vapor trait. Without it this suite says so instead of
/// passing by running nothing.
@Test(.disabled("needs the Vapor trait: swift test --traits Vapor"))
func vaporTestsNeedTheirTrait() {}
#endif
