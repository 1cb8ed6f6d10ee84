import AxiomSymbolication
import Benchmark

let benchmarks: @Sendable () -> Void = {
}
