import AxiomCrash
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("The pthread_create wrapper")
struct ThreadWrapperTests {
    /// What a thread created after install adds to the process's address space, beyond its own stack: the
    /// alternate signal stack (64 KiB and a guard page) and nothing else. A malloc or free on the new thread, in the
    /// wrapper or in `CrashReporter.prepareCurrentThread`, would make glibc reserve an arena of 64 MiB of address
    /// space for it, megabytes per thread for a service with many.
    @Test(
        "a thread created after install costs its alternate stack in address space, and no malloc arena",
        .enabled(
            if: CrashReporter.preparesNewThreads,
            "without the ThreadWrapper trait, or under a sanitizer, new threads are not wrapped"))
    func aNewThreadCostsItsAlternateStackOnly() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let output = directory.path + "/threads.out"
        let termination = ChildProcess.run(
            ChildProcess.probePath, [directory.path + "/reports", "thread-address-space"], stdoutPath: output)
        #expect(termination == .exited(0))
        let fields = ChildProcess.readText(output).split(whereSeparator: { $0 == " " || $0 == "\n" })
        let values = Dictionary(
            uniqueKeysWithValues: fields.compactMap { field -> (String, Int)? in
                let parts = field.split(separator: "=")
                guard parts.count == 2, let value = Int(parts[1]) else { return nil }
                return (String(parts[0]), value)
            })
        let wrapped = try #require(values["wrapped"])
        let direct = try #require(values["direct"])
        // 68 KiB a thread on 4 KiB pages, 32 threads.
        let perThread = Double(wrapped - direct) / 32
        #expect(perThread >= 64, "a wrapped thread adds \(perThread) KiB: no alternate stack?")
        #expect(perThread <= 128, "a wrapped thread adds \(perThread) KiB beyond a direct one")
    }
}
