import Axiom
import AxiomTesting
import InMemoryLogging
import Logging
import MetricsTestKit
import Synchronization
import Testing

@Suite("Feature level")
struct FeatureLevelTests {
    final class HealthBox: Sendable {
        let value = Mutex(SystemHealth.healthy)
        var source: SystemHealthProbe { SystemHealthProbe { self.value.withLock { $0 } } }
    }

    @Test("drops to offline when the network capability fails, and returns to full when it comes back")
    func offlineAndBack() async throws {
        let clock = ManualClock()
        let online = Flag(true)
        let validator = CapabilityValidator(
            configuration: .init(ttl: .seconds(10), failureTTL: .seconds(5)), clock: clock)
        validator.register(
            CustomCapability("network") {
                guard online.isOn else { throw CapabilityError.capabilityUnavailable("network") }
            })
        validator.register(CustomCapability("storage") {})
        let logs = InMemoryLogHandler()
        let metrics = TestMetrics()
        let monitor = FeatureLevelMonitor(
            validator: validator, health: SystemHealthProbe.fixed(.healthy),
            logger: Logger(label: "test") { _ in logs }, metrics: metrics)
        let seen = Mutex<[FeatureLevelTransition]>([])
        await monitor.addObserver { transition in seen.withLock { $0.append(transition) } }
        let stream = monitor.transitions()

        #expect(await monitor.evaluate() == .full)

        online.set(false)
        clock.advance(by: .seconds(10))
        #expect(await monitor.evaluate() == .offline)
        #expect(await monitor.reason == "capability network unavailable")

        online.set(true)
        clock.advance(by: .seconds(5))
        #expect(await monitor.evaluate() == .full)

        var streamed: [FeatureLevel] = []
        for await transition in stream {
            streamed.append(transition.to)
            if streamed.count == 2 { break }
        }
        #expect(streamed == [.offline, .full])
        #expect(seen.withLock { $0.map(\.to) } == [.offline, .full])
        #expect(
            logs.entries.map(\.message.description) == ["feature level full → offline", "feature level offline → full"])
        #expect(try metrics.expectGauge("axiom_feature_level").values == [0, 3, 0])
        #expect(
            try metrics.expectCounter("axiom_feature_level_transitions_total", [("from", "full"), ("to", "offline")])
                .totalValue == 1)
    }

    @Test("system health decides minimal before capabilities; essentials decide basic, enhanced limited")
    func policyOrder() async throws {
        let clock = ManualClock()
        let validator = CapabilityValidator(clock: clock)
        validator.register(CustomCapability("network") {})
        validator.register(CustomCapability("storage") {})
        let health = HealthBox()
        let monitor = FeatureLevelMonitor(
            validator: validator, policy: FeaturePolicy(essential: ["storage", "analytics"], enhanced: ["camera"]),
            health: health.source, metrics: TestMetrics())
        #expect(await monitor.evaluate() == .basic, "analytics is essential and missing")

        validator.register(CustomCapability("analytics") {})
        #expect(await monitor.evaluate() == .limited, "camera is enhanced and missing")

        validator.register(CustomCapability("camera") {})
        #expect(await monitor.evaluate() == .full)

        health.value.withLock { $0.memoryUsage = 0.95 }
        #expect(await monitor.evaluate() == .minimal)
        health.value.withLock {
            $0.memoryUsage = 0.5
            $0.cpuPressure = 0.8
        }
        #expect(await monitor.evaluate() == .minimal)
        health.value.withLock { $0.cpuPressure = 0.1 }
        #expect(await monitor.evaluate() == .full)
    }

    @Test("Linux health reads meminfo, loadavg and cgroup v2 pressure files")
    func linuxHealthFromFiles() async {
        let proc = TemporaryDirectory()
        let cgroup = TemporaryDirectory()
        defer {
            proc.remove()
            cgroup.remove()
        }
        proc.write("meminfo", "MemTotal: 1000 kB\nMemAvailable: 250 kB\n")
        proc.write("loadavg", "3.00 2.00 1.00 2/300 4000\n")
        cgroup.write(
            "cpu.pressure",
            "some avg10=12.50 avg60=1.00 avg300=0.00 total=1\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n")
        cgroup.write("memory.pressure", "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n")
        let health = await LinuxSystemHealth(procRoot: proc.path, cgroupRoot: cgroup.path, cores: 4).read()
        #expect(health.memoryUsage == 0.75)
        #expect(health.cpuLoad == 0.75)
        #expect(health.cpuPressure == 0.125)
        #expect(health.memoryPressure == 0)
    }

    @Test("Linux health reads this machine")
    func linuxHealthReal() async {
        let health = await LinuxSystemHealth().read()
        #expect(health.memoryUsage != nil)
        #expect(health.cpuLoad != nil)
    }
}
