import AxiomCrash
import Testing

@inline(never)
func captureFromHelper(skipping: Int) -> [UInt] {
    StackCapture.capture(skippingFrames: skipping)
}

@Suite("Non-fatal stack capture")
struct StackCaptureTests {
    @Test func skipsItsOwnFramesAndTheRequestedOnes() {
        let direct = captureFromHelper(skipping: 0)  // [helper, this test, its callers…]
        let skipped = captureFromHelper(skipping: 1)  // [this test, its callers…]
        #expect(direct.count > 3)
        #expect(skipped.count == direct.count - 1)
        // Same callers above this test; only the call sites inside it differ.
        #expect(Array(skipped.dropFirst()) == Array(direct.dropFirst(2)))
        // Both in this test (release builds may even merge the two call sites).
        #expect(skipped[0].distance(to: direct[1]).magnitude < 4096)
    }

    @Test func fillsACallerBufferWithinItsCapacity() {
        // Called straight from this test (no closure frame in between).
        let storage = UnsafeMutableBufferPointer<UInt>.allocate(capacity: 64)
        defer { storage.deallocate() }
        let count = StackCapture.capture(into: storage)
        let reference = StackCapture.capture()
        #expect(count > 3)
        // Both were called from this test: the first addresses are two call sites a
        // few bytes apart in it, and all frames above it agree.
        #expect(storage[0].distance(to: reference[0]).magnitude < 512)
        #expect(Array(storage[1..<count]) == Array(reference.dropFirst()))

        #expect(StackCapture.capture(into: UnsafeMutableBufferPointer(rebasing: storage[0..<3])) == 3)
        #expect(StackCapture.capture(into: UnsafeMutableBufferPointer(rebasing: storage[0..<1])) == 1)
        #expect(StackCapture.capture(into: UnsafeMutableBufferPointer(start: nil, count: 0)) == 0)
        #expect(StackCapture.capture(maxFrames: 3).count == 3)
        #expect(StackCapture.capture(maxFrames: 0).isEmpty)
    }
}
