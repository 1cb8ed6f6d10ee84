import Axiom
import AxiomTesting
import Testing

@Suite("Capabilities")
struct CapabilityTests {
    @Test("network reachability connects to a loopback listener")
    func networkReachable() async throws {
        let listener = try LoopbackListener()
        defer { listener.close() }
        try await NetworkReachability(host: "127.0.0.1", port: listener.port).validate()
    }

    @Test("network reachability fails on a closed port with the requirement it missed")
    func networkUnreachable() async throws {
        let listener = try LoopbackListener()
        let port = listener.port
        listener.close()
        let error = await #expect(throws: CapabilityError.self) {
            try await NetworkReachability(host: "127.0.0.1", port: port).validate()
        }
        guard case .requirementNotMet(let requirement) = error else {
            Issue.record("expected requirementNotMet, got \(String(describing: error))")
            return
        }
        #expect(requirement.capability == "network")
        #expect(requirement.detail.contains("127.0.0.1:\(port)"))
    }

    @Test("storage needs an existing writable directory with enough free space")
    func storage() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let storage = StorageCapability(directory: directory.path, minimumFreeBytes: 1)
        try await storage.validate()
        #expect((storage.freeBytes() ?? 0) > 0)
        await #expect(throws: CapabilityError.self) {
            try await StorageCapability(directory: directory.path, minimumFreeBytes: .max).validate()
        }
        await #expect(throws: CapabilityError.self) {
            try await StorageCapability(directory: directory.path + "/missing").validate()
        }
    }

    @Test("memory headroom is the smaller of MemAvailable and the cgroup's limit minus usage")
    func memoryHeadroom() async throws {
        let proc = TemporaryDirectory()
        let cgroup = TemporaryDirectory()
        defer {
            proc.remove()
            cgroup.remove()
        }
        proc.write("meminfo", "MemTotal:       8000000 kB\nMemFree:  100 kB\nMemAvailable:   4000000 kB\n")
        let hostOnly = MemoryHeadroom(minimumAvailableBytes: 1, procRoot: proc.path, cgroupRoot: cgroup.path)
        // Compared unwrapped: with an `Optional<UInt64>` operand, AddressSanitizer reports a stack-buffer-overflow in
        // the runtime's `_convertToAnyHashable`, called by the expectation macro's thunk (Swift 6.3.1), not in ours.
        #expect(try #require(hostOnly.availableBytes()) == 4_000_000 * 1024)

        cgroup.write("memory.max", "536870912\n")
        cgroup.write("memory.current", "436870912\n")
        let limited = MemoryHeadroom(
            minimumAvailableBytes: 200_000_000, procRoot: proc.path, cgroupRoot: cgroup.path)
        #expect(try #require(limited.availableBytes()) == 100_000_000)
        await #expect(throws: CapabilityError.self) { try await limited.validate() }

        cgroup.write("memory.max", "max\n")
        #expect(try #require(limited.availableBytes()) == 4_000_000 * 1024)
        try await limited.validate()
    }

    @Test("memory headroom reads this machine's real figures")
    func memoryHeadroomReal() async throws {
        let headroom = MemoryHeadroom(minimumAvailableBytes: 1)
        #expect((headroom.availableBytes() ?? 0) > 0)
        try await headroom.validate()
    }

    @Test("the validator caches a result for its TTL, then validates again")
    func cacheTTL() async throws {
        let clock = ManualClock()
        let checks = CallCounter()
        let validator = CapabilityValidator(configuration: .init(ttl: .seconds(30)), clock: clock)
        validator.register(CustomCapability("wallet") { checks.next() })
        try await validator.validate("wallet")
        try await validator.validate("wallet")
        clock.advance(by: .seconds(29))
        try await validator.validate("wallet")
        #expect(checks.count == 1)
        clock.advance(by: .seconds(1))
        try await validator.validate("wallet")
        #expect(checks.count == 2)
    }

    @Test("a validation that outlasts the timeout fails with validationTimeout")
    func validationTimeout() async throws {
        let clock = ManualClock()
        let validator = CapabilityValidator(configuration: .init(timeout: .seconds(2)), clock: clock)
        validator.register(CustomCapability("wallet") { try await clock.sleep(for: .seconds(60)) })
        let task = Task { await validator.status(of: "wallet") }
        await clock.waitForSleepers(2)
        clock.advance(by: .seconds(2))
        guard case .unavailable(.validationTimeout) = await task.value else {
            Issue.record("expected a validation timeout")
            return
        }
    }

    @Test("a failing capability is available through its first working fallback")
    func fallbacks() async throws {
        let validator = CapabilityValidator(clock: ManualClock())
        let down = CapabilityError.requirementNotMet(CapabilityRequirement(capability: "relay", detail: "up"))
        validator.register(
            CustomCapability("relay") { throw down },
            fallbacks: [CustomCapability("relay-backup-1") { throw down }, CustomCapability("relay-backup-2") {}])
        guard case .available(let via) = await validator.status(of: "relay") else {
            Issue.record("expected the fallback to make relay available")
            return
        }
        #expect(via == "relay-backup-2")

        validator.register(
            CustomCapability("wallet") { throw down }, fallbacks: [CustomCapability("cache") { throw down }])
        await #expect(throws: CapabilityError.self) { try await validator.validate("wallet") }
    }

    @Test("the capability stage refuses the call when a requirement is not met, and never runs the work")
    func stageRefuses() async throws {
        let validator = CapabilityValidator(clock: ManualClock())
        let online = Flag(false)
        validator.register(
            CustomCapability("network") {
                guard online.isOn else { throw CapabilityError.capabilityUnavailable("network") }
            })
        let stage = CapabilityStage(validator, requiring: ["network"])
        let ran = CallCounter()
        await #expect(throws: CapabilityError.self) {
            try await stage.run("sync") { ran.next() }
        }
        #expect(ran.count == 0)
        online.set(true)
        validator.invalidate("network")
        #expect(try await stage.run("sync") { ran.next() } == 1)
    }

    @Test("the capability stage trusts a cached result until its TTL ends, then validates again")
    func stageCacheExpires() async throws {
        let clock = ManualClock()
        let checks = CallCounter()
        let validator = CapabilityValidator(configuration: .init(ttl: .seconds(10)), clock: clock)
        validator.register(CustomCapability("network") { checks.next() })
        let stage = CapabilityStage(validator, requiring: ["network"])
        for _ in 0..<5 { _ = try await stage.run("op") { 1 } }
        #expect(checks.count == 1)

        await clock.waitForSleepers(1)  // the cache's expiry timer
        clock.advance(by: .seconds(10))
        // The timer's task ends the cached result right after the clock moves; give it the chance to run.
        var calls = 0
        while checks.count == 1 && calls < 10_000 {
            _ = try await stage.run("op") { 1 }
            await Task.yield()
            calls += 1
        }
        #expect(checks.count == 2)
    }

    @Test("an unregistered capability is unavailable")
    func unregistered() async {
        let validator = CapabilityValidator(clock: ManualClock())
        guard case .unavailable(.capabilityUnavailable("camera")) = await validator.status(of: "camera") else {
            Issue.record("expected capabilityUnavailable(camera)")
            return
        }
    }
}
