#if !(Hummingbird && OpenTelemetry)
import Testing

/// The integration tests need the products behind the Hummingbird and OpenTelemetry traits (which bring Tracing and
/// ServiceLifecycle). Without them this suite says so instead of passing by running nothing.
@Test(.disabled("needs the Hummingbird and OpenTelemetry traits: swift test --enable-all-traits"))
func integrationTestsNeedTheirTraits() {}
#endif
