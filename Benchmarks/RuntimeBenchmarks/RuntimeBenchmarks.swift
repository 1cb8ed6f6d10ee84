import Axiom
import Benchmark

let benchmarks: @Sendable () -> Void = {
}
