import Axiom
import Synchronization

/// Prints the demo's narration: sections, facts, and outcomes.
enum Transcript {
    static func section(_ title: String) {
        print("\n== \(title) " + String(repeating: "=", count: max(0, 72 - title.count)))
    }

    static func line(_ text: String) { print("   \(text)") }

    static func outcome<Value>(_ label: String, _ outcome: Outcome<Value>) {
        switch outcome {
        case .success(let value): line("\(label): ok → \(value)")
        case .recovered(let value, let event):
            line("\(label): recovered from \(event.code) after \(event.attempt) failed attempt(s) → \(value)")
        case .ignored(let event): line("\(label): ignored \(event.code)")
        case .handled(let event): line("\(label): handled \(event.code) [\(event.descriptor.category.rawValue)]")
        }
    }
}

/// Counts every outcome by domain and disposition: the demo's closing table.
final class TallyObserver: ErrorObserver {
    private let counts = Mutex<[String: [Disposition: Int]]>([:])

    func observe(_ event: ErrorEvent, disposition: Disposition) {
        counts.withTrackedLock { $0[event.code.domain, default: [:]][disposition, default: 0] += 1 }
    }

    func printTable() {
        let snapshot = counts.withTrackedLock { $0 }
        let columns = Disposition.allCases
        let header =
            "domain".padding(toLength: 18, withPad: " ", startingAt: 0)
            + columns.map { $0.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0) }.joined()
        Transcript.line(header)
        for domain in snapshot.keys.sorted() {
            let row = columns.map {
                String(snapshot[domain]?[$0] ?? 0).padding(toLength: 10, withPad: " ", startingAt: 0)
            }
            Transcript.line(domain.padding(toLength: 18, withPad: " ", startingAt: 0) + row.joined())
        }
    }
}
